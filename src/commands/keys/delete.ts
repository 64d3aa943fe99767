import type { Command } from 'commander';
import { deleteApiKey } from '../../client/endpoints/api-keys.js';
import { parseId } from '../../cli/parse.js';
import type { Cli } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { DRY_RUN_HELP } from '../../cli/dry-run.js';

interface KeysDeleteOptions {
  id: number;
  yes?: boolean;
}

/** `lic keys delete ID`: confirms, then DELETE /v1/api-keys/{id}. */
async function runKeysDelete(opts: KeysDeleteOptions, rt: Runtime): Promise<void> {
  await rt.confirm(`delete API key ${opts.id}`, opts.yes);
  const client = await rt.client();
  const body = await deleteApiKey(client, opts.id);
  if (rt.out.opts.format === 'json') rt.out.json(body);
  else rt.out.info(`Deleted API key ${opts.id}.`);
}

/** Declares `keys delete ID [--yes]` (alias `rm`). */
export function registerKeysDelete(parent: Command, cli: Cli, run = runKeysDelete): void {
  parent
    .command('delete')
    .alias('rm')
    .description('Delete an API key (asks first; --yes off a terminal)')
    .argument('<id>', 'API key id', parseId)
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', DRY_RUN_HELP)
    .addHelpText(
      'after',
      '\nExamples:\n  lic keys delete 12\n  lic keys delete 12 --dry-run\n  lic keys list --revoked --all --fields id -o tsv | tail -n +2 | xargs -n1 lic keys delete --yes',
    )
    .action(async (id: number, o: { yes?: boolean }, cmd: Command) => run({ id, yes: o.yes }, cli.runtimeOf(cmd)));
}
