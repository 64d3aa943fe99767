import type { Command } from 'commander';
import { UsageError } from '../../cli/errors.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';

/** `lic profile use NAME`: makes NAME the default profile. */
async function runProfileUse(name: string, rt: Runtime): Promise<void> {
  const store = await rt.profiles();
  if (!store.get(name))
    throw new UsageError(
      `no profile named "${name}"; profiles: ${
        store
          .list()
          .map((p) => p.name)
          .join(', ') || '(none)'
      }`,
    );
  store.use(name);
  rt.out.note(`Default profile is now "${name}".`);
}

/** Registers `lic profile use` on `parent`. */
export function registerProfileUse(parent: Command, deps: CommandDeps, run = runProfileUse): void {
  parent
    .command('use')
    .description('Make a profile the default')
    .argument('<name>', 'profile name')
    .addHelpText('after', '\nExamples:\n  lic profile use prod')
    .action(async (name: string, _o: unknown, cmd: Command) => run(name, deps.runtimeOf(cmd)));
}
