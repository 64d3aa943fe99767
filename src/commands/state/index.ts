import { defineNoun } from '../../cli/noun.js';

/** `lic state`: the licensing configuration as a file (docs/state.md); `lic diff` and `lic apply` read it. Its verbs in help's order, each loaded only when needed (src/cli/noun.ts). */
export const loadState = defineNoun(
  {
    name: 'state',
    description: 'The configuration as code: export it as a state file for `lic diff` and `lic apply` (docs/state.md)',
    after:
      '\nThen `lic diff -f licensing.yaml` shows what `lic apply -f licensing.yaml` would change.\n\nExamples:\n  lic state export > licensing.yaml\n  lic state export --nouns keys,resources --data-dir resources > licensing.yaml',
  },
  [['export', [], async () => (await import('./export.js')).registerStateExport]],
);
