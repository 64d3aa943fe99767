import type { Command } from 'commander';
import { deleteResource } from '../../client/endpoints/resources.js';
import { parseId } from '../../cli/parse.js';
import type { Cli } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { DRY_RUN_HELP } from '../../cli/dry-run.js';

interface ResourcesDeleteOptions {
  id: number;
  yes?: boolean;
}

/** `lic resources delete ID`: confirms, then DELETE /v1/resources/{id}. */
async function runResourcesDelete(opts: ResourcesDeleteOptions, rt: Runtime): Promise<void> {
  await rt.confirm(`delete resource ${opts.id}`, opts.yes);
  const client = await rt.client();
  const body = await deleteResource(client, opts.id);
  if (rt.out.opts.format === 'json') rt.out.json(body);
  else rt.out.info(`Deleted resource ${opts.id}.`);
}

/** Declares `resources delete ID [--yes]`. */
export function registerResourcesDelete(parent: Command, cli: Cli, run = runResourcesDelete): void {
  parent
    .command('delete')
    .alias('rm')
    .description('Delete a resource (asks first; --yes off a terminal)')
    .argument('<id>', 'resource id', parseId)
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', DRY_RUN_HELP)
    .addHelpText('after', '\nExamples:\n  lic resources delete 4\n  lic resources delete 4 --dry-run\n  lic resources delete 4 --yes')
    .action(async (id: number, o: { yes?: boolean }, cmd: Command) => run({ id, yes: o.yes }, cli.runtimeOf(cmd)));
}
