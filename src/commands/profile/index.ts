import { nounWithVerbs, type RegisterNoun, type VerbEntry } from '../../cli/noun.js';

/** The verbs of `lic profile`, in the order help lists them (src/cli/noun.ts: a run loads only the one it names). */
const VERBS: readonly VerbEntry[] = [
  ['add', [], async () => (await import('./add.js')).registerProfileAdd],
  ['list', ['ls'], async () => (await import('./list.js')).registerProfileList],
  ['use', [], async () => (await import('./use.js')).registerProfileUse],
  ['remove', ['rm'], async () => (await import('./remove.js')).registerProfileRemove],
  ['show', [], async () => (await import('./show.js')).registerProfileShow],
  ['migrate', [], async () => (await import('./migrate.js')).registerProfileMigrate],
];

/** `lic profile`: named base URL + API key pairs on this machine. `verb`: the verb the command line names, if any (src/cli/program.ts NOUNS). */
export function loadProfile(verb?: string): Promise<RegisterNoun> {
  return nounWithVerbs(
    (program) =>
      program
        .command('profile')
        .description('Manage profiles: base URL and API key (in the keyring) per service')
        .addHelpText(
          'after',
          '\nExamples:\n  lic profile add prod --base-url https://licensing.example.com\n  lic profile use prod\n  lic profile show',
        ),
    VERBS,
    verb,
  );
}
