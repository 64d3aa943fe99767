import type { Command } from 'commander';
import { deleteAssembly } from '../../client/endpoints/assemblies.js';
import { parseId } from '../../cli/parse.js';
import type { Cli } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { DRY_RUN_HELP } from '../../cli/dry-run.js';

interface AssembliesDeleteOptions {
  id: number;
  yes?: boolean;
}

/** `lic assemblies delete ID`: confirms, then DELETE /v1/assemblies/{id}. */
async function runAssembliesDelete(opts: AssembliesDeleteOptions, rt: Runtime): Promise<void> {
  await rt.confirm(`delete assembly ${opts.id}`, opts.yes);
  const client = await rt.client();
  const body = await deleteAssembly(client, opts.id);
  if (rt.out.opts.format === 'json') rt.out.json(body);
  else rt.out.info(`Deleted assembly ${opts.id}.`);
}

/** Declares `assemblies delete ID [--yes]`. */
export function registerAssembliesDelete(parent: Command, cli: Cli, run = runAssembliesDelete): void {
  parent
    .command('delete')
    .alias('rm')
    .description('Delete an assembly (asks first; --yes off a terminal)')
    .argument('<id>', 'assembly id', parseId)
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', DRY_RUN_HELP)
    .addHelpText(
      'after',
      '\nExamples:\n  lic assemblies delete 3\n  lic assemblies delete 3 --dry-run\n  lic assemblies list --name Folio.Pdf --all --fields id -o tsv | tail -n +2 | xargs -n1 lic assemblies delete --yes',
    )
    .action(async (id: number, o: { yes?: boolean }, cmd: Command) => run({ id, yes: o.yes }, cli.runtimeOf(cmd)));
}
