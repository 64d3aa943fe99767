import type { Command } from 'commander';
import type { CommandDeps } from '../../cli/deps.js';
import { registerKeysCreate } from './create.js';
import { registerKeysDelete } from './delete.js';
import { registerKeysList } from './list.js';
import { registerKeysRotate } from './rotate.js';
import { registerKeysUpdate } from './update.js';

/** `lic keys`: API keys (contract §4). */
export function registerKeys(program: Command, deps: CommandDeps): void {
  const keys = program
    .command('keys')
    .description('Manage API keys (Administrator)')
    .addHelpText(
      'after',
      '\nExamples:\n  lic keys list --active\n  lic keys create --perm rw --name ci --expires 90d\n  lic keys update 5 --revoke',
    );
  registerKeysList(keys, deps);
  registerKeysCreate(keys, deps);
  registerKeysUpdate(keys, deps);
  registerKeysDelete(keys, deps);
  registerKeysRotate(keys, deps);
}
