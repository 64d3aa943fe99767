import { nounWithVerbs, type RegisterNoun, type VerbEntry } from '../../cli/noun.js';

/** The verbs of `lic templates`, in the order help lists them (src/cli/noun.ts: a run loads only the one it names). */
const VERBS: readonly VerbEntry[] = [
  ['list', ['ls'], async () => (await import('./list.js')).registerTemplatesList],
  ['show', [], async () => (await import('./show.js')).registerTemplatesShow],
];

/** `lic templates`: license templates of a product release, read-only (contract §8). `verb`: the verb the command line names, if any (src/cli/program.ts NOUNS). */
export function loadTemplates(verb?: string): Promise<RegisterNoun> {
  return nounWithVerbs(
    (program) =>
      program
        .command('templates')
        .description('Read the license templates of a product release (Administrator, LicenseManager)')
        .addHelpText(
          'after',
          '\nExamples:\n  lic templates list --product 1 --release 2\n  lic templates show 3 --product 1 --release 2 > license-template.xml',
        ),
    VERBS,
    verb,
  );
}
