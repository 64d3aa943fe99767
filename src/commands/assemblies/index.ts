import type { Command } from 'commander';
import type { Cli } from '../../cli/deps.js';
import { registerAssembliesCreate } from './create.js';
import { registerAssembliesDelete } from './delete.js';
import { registerAssembliesImport } from './import.js';
import { registerAssembliesList } from './list.js';
import { registerAssembliesUpdate } from './update.js';

/** `lic assemblies`: .NET assemblies under licensing (contract §7). */
export function registerAssemblies(program: Command, cli: Cli): void {
  const assemblies = program
    .command('assemblies')
    .description('Manage .NET assemblies under licensing (Administrator, LicenseManager)')
    .addHelpText(
      'after',
      '\nExamples:\n  lic assemblies list --name System.Xml.Linq\n  lic assemblies create --from-dll bin/Release/MyLib.dll\n  lic assemblies import bin/Release --recursive',
    );
  registerAssembliesList(assemblies, cli);
  registerAssembliesCreate(assemblies, cli);
  registerAssembliesUpdate(assemblies, cli);
  registerAssembliesDelete(assemblies, cli);
  registerAssembliesImport(assemblies, cli);
}
