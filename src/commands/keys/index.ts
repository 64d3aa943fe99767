import { nounWithVerbs, type RegisterNoun, type VerbEntry } from '../../cli/noun.js';

/** The verbs of `lic keys`, in the order help lists them (src/cli/noun.ts: a run loads only the one it names). */
const VERBS: readonly VerbEntry[] = [
  ['list', ['ls'], async () => (await import('./list.js')).registerKeysList],
  ['create', [], async () => (await import('./create.js')).registerKeysCreate],
  ['update', [], async () => (await import('./update.js')).registerKeysUpdate],
  ['delete', ['rm'], async () => (await import('./delete.js')).registerKeysDelete],
  ['rotate', [], async () => (await import('./rotate.js')).registerKeysRotate],
];

/** `lic keys`: API keys (contract §4). `verb`: the verb the command line names, if any (src/cli/program.ts NOUNS). */
export function loadKeys(verb?: string): Promise<RegisterNoun> {
  return nounWithVerbs(
    (program) =>
      program
        .command('keys')
        .description('Manage API keys (Administrator)')
        .addHelpText(
          'after',
          '\nExamples:\n  lic keys list --active\n  lic keys create --perm rw --name ci --expires 90d\n  lic keys update 5 --revoke',
        ),
    VERBS,
    verb,
  );
}
