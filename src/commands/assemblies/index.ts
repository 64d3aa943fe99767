import { nounWithVerbs, type RegisterNoun, type VerbEntry } from '../../cli/noun.js';

/** The verbs of `lic assemblies`, in the order help lists them (src/cli/noun.ts: a run loads only the one it names). */
const VERBS: readonly VerbEntry[] = [
  ['list', ['ls'], async () => (await import('./list.js')).registerAssembliesList],
  ['create', [], async () => (await import('./create.js')).registerAssembliesCreate],
  ['update', [], async () => (await import('./update.js')).registerAssembliesUpdate],
  ['delete', ['rm'], async () => (await import('./delete.js')).registerAssembliesDelete],
  ['import', [], async () => (await import('./import.js')).registerAssembliesImport],
];

/** `lic assemblies`: .NET assemblies under licensing (contract §7). `verb`: the verb the command line names, if any (src/cli/program.ts NOUNS). */
export function loadAssemblies(verb?: string): Promise<RegisterNoun> {
  return nounWithVerbs(
    (program) =>
      program
        .command('assemblies')
        .description('Manage .NET assemblies under licensing (Administrator, LicenseManager)')
        .addHelpText(
          'after',
          '\nExamples:\n  lic assemblies list --name System.Xml.Linq\n  lic assemblies create --from-dll bin/Release/MyLib.dll\n  lic assemblies import bin/Release --recursive',
        ),
    VERBS,
    verb,
  );
}
