import { nounWithVerbs, type RegisterNoun, type VerbEntry } from '../../cli/noun.js';

/** The verbs of `lic state`, in the order help lists them (src/cli/noun.ts: a run loads only the one it names). */
const VERBS: readonly VerbEntry[] = [['export', [], async () => (await import('./export.js')).registerStateExport]];

/** `lic state`: the licensing configuration as a file (docs/state.md); `lic diff` and `lic apply` read it. `verb`: the verb the command line names, if any (src/cli/program.ts NOUNS). */
export function loadState(verb?: string): Promise<RegisterNoun> {
  return nounWithVerbs(
    (program) =>
      program
        .command('state')
        .description('The configuration as code: export it as a state file for `lic diff` and `lic apply` (docs/state.md)')
        .addHelpText(
          'after',
          '\nThen `lic diff -f licensing.yaml` shows what `lic apply -f licensing.yaml` would change.\n\nExamples:\n  lic state export > licensing.yaml\n  lic state export --nouns keys,resources --data-dir resources > licensing.yaml',
        ),
    VERBS,
    verb,
  );
}
