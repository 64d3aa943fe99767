import type { Command } from 'commander';
import type { CommandDeps } from '../../cli/deps.js';
import { registerStateExport } from './export.js';

/** `lic state`: the licensing configuration as a file (docs/state.md); `lic diff` and `lic apply` read it. */
export function registerState(program: Command, deps: CommandDeps): void {
  const state = program
    .command('state')
    .description('The configuration as code: export it as a state file for `lic diff` and `lic apply` (docs/state.md)')
    .addHelpText(
      'after',
      '\nThen `lic diff -f licensing.yaml` shows what `lic apply -f licensing.yaml` would change.\n\nExamples:\n  lic state export > licensing.yaml\n  lic state export --nouns keys,resources --data-dir resources > licensing.yaml',
    );
  registerStateExport(state, deps);
}
