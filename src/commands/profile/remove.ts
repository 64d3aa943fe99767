import type { Command } from 'commander';
import { UsageError } from '../../cli/errors.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';

/**
 * `lic profile remove NAME`: forgets a profile and its key, in the file or the keyring (local
 * only; the key stays valid on the service). A keyring that can't delete the entry is a
 * warning: the profile is gone either way.
 */
async function runProfileRemove(name: string, rt: Runtime): Promise<void> {
  const store = await rt.profiles();
  const { removeProfileKey } = await import('../../config/key-storage.js');
  const { removed, leftover } = await removeProfileKey(store, rt.ctx.keyring, name);
  if (!removed) throw new UsageError(`no profile named "${name}"`);
  rt.out.note(
    `Removed profile "${name}". The API key itself is still valid on the service; revoke it with \`lic keys update ID --revoke\`.`,
  );
  if (leftover) rt.out.warn(`lic: the key of profile "${name}" is still in the keyring (${leftover}).`);
}

/** Registers `lic profile remove` on `parent`. */
export function registerProfileRemove(parent: Command, deps: CommandDeps, run = runProfileRemove): void {
  parent
    .command('remove')
    .alias('rm')
    .description('Remove a profile from this machine')
    .argument('<name>', 'profile name')
    .addHelpText('after', '\nExamples:\n  lic profile remove ci')
    .action(async (name: string, _o: unknown, cmd: Command) => run(name, deps.runtimeOf(cmd)));
}
