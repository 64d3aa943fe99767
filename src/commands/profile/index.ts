import type { Command } from 'commander';
import type { CommandDeps } from '../../cli/deps.js';
import { registerProfileAdd } from './add.js';
import { registerProfileList } from './list.js';
import { registerProfileMigrate } from './migrate.js';
import { registerProfileRemove } from './remove.js';
import { registerProfileShow } from './show.js';
import { registerProfileUse } from './use.js';

/** `lic profile`: named base URL + API key pairs on this machine. */
export function registerProfile(program: Command, deps: CommandDeps): void {
  const p = program
    .command('profile')
    .description('Manage profiles: base URL and API key (in the keyring) per service')
    .addHelpText(
      'after',
      '\nExamples:\n  lic profile add prod --base-url https://licensing.example.com\n  lic profile use prod\n  lic profile show',
    );
  registerProfileAdd(p, deps);
  registerProfileList(p, deps);
  registerProfileUse(p, deps);
  registerProfileRemove(p, deps);
  registerProfileShow(p, deps);
  registerProfileMigrate(p, deps);
}
