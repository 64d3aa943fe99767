import { nounWithVerbs, type RegisterNoun, type VerbEntry } from '../../cli/noun.js';

/** The verbs of `lic resources`, in the order help lists them (src/cli/noun.ts: a run loads only the one it names). */
const VERBS: readonly VerbEntry[] = [
  ['list', ['ls'], async () => (await import('./list.js')).registerResourcesList],
  ['get', [], async () => (await import('./get.js')).registerResourcesGet],
  ['create', [], async () => (await import('./create.js')).registerResourcesCreate],
  ['update', [], async () => (await import('./update.js')).registerResourcesUpdate],
  ['delete', ['rm'], async () => (await import('./delete.js')).registerResourcesDelete],
  ['export', [], async () => (await import('./export.js')).registerResourcesExport],
  ['import', [], async () => (await import('./import.js')).registerResourcesImport],
];

/** `lic resources`: signing keys, e-mail templates and other files kept by the service (contract §7). `verb`: the verb the command line names, if any (src/cli/program.ts NOUNS). */
export function loadResources(verb?: string): Promise<RegisterNoun> {
  return nounWithVerbs(
    (program) =>
      program
        .command('resources')
        .description('Manage resources: signing keys, e-mail templates, mapping files (Administrator, LicenseManager, Sales)')
        .addHelpText(
          'after',
          '\nExamples:\n  lic resources list --type RSA\n  lic resources create --name "Signing key" --type RSA --format SNK --data-file Keys.snk\n  lic resources export --profile staging | lic resources import - --profile prod',
        ),
    VERBS,
    verb,
  );
}
