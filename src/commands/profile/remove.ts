import type { Command } from 'commander';
import { UsageError } from '../../cli/errors.js';
import type { Cli } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';

/** `lic profile remove NAME`: forgets a profile and its key (local only; the key stays valid on the service). */
async function runProfileRemove(name: string, rt: Runtime): Promise<void> {
  const store = await rt.profiles();
  if (!store.remove(name)) throw new UsageError(`no profile named "${name}"`);
  rt.out.info(
    `Removed profile "${name}". The API key itself is still valid on the service; revoke it with \`lic keys update ID --revoke\`.`,
  );
}

/** Registers `lic profile remove` on `parent`. */
export function registerProfileRemove(parent: Command, cli: Cli, run = runProfileRemove): void {
  parent
    .command('remove')
    .alias('rm')
    .description('Remove a profile from this machine')
    .argument('<name>', 'profile name')
    .addHelpText('after', '\nExamples:\n  lic profile remove ci')
    .action(async (name: string, _o: unknown, cmd: Command) => run(name, cli.runtimeOf(cmd)));
}
