import { defineNoun } from '../../cli/noun.js';

/** `lic assemblies`: .NET assemblies under licensing (contract §7). Its verbs in help's order, each loaded only when needed (src/cli/noun.ts). */
export const loadAssemblies = defineNoun(
  {
    name: 'assemblies',
    description: 'Manage .NET assemblies under licensing (Administrator, LicenseManager)',
    after:
      '\nExamples:\n  lic assemblies list --name System.Xml.Linq\n  lic assemblies create --from-dll bin/Release/MyLib.dll\n  lic assemblies import bin/Release --recursive',
  },
  [
    ['list', ['ls'], async () => (await import('./list.js')).registerAssembliesList],
    ['create', [], async () => (await import('./create.js')).registerAssembliesCreate],
    ['update', [], async () => (await import('./update.js')).registerAssembliesUpdate],
    ['delete', ['rm'], async () => (await import('./delete.js')).registerAssembliesDelete],
    ['import', [], async () => (await import('./import.js')).registerAssembliesImport],
  ],
);
