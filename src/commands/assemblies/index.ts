import type { Command } from 'commander';
import type { CommandDeps } from '../../cli/deps.js';
import { registerAssembliesCreate } from './create.js';
import { registerAssembliesDelete } from './delete.js';
import { registerAssembliesImport } from './import.js';
import { registerAssembliesList } from './list.js';
import { registerAssembliesUpdate } from './update.js';

/** `lic assemblies`: .NET assemblies under licensing (contract §7). */
export function registerAssemblies(program: Command, deps: CommandDeps): void {
  const assemblies = program
    .command('assemblies')
    .description('Manage .NET assemblies under licensing (Administrator, LicenseManager)')
    .addHelpText(
      'after',
      '\nExamples:\n  lic assemblies list --name System.Xml.Linq\n  lic assemblies create --from-dll bin/Release/MyLib.dll\n  lic assemblies import bin/Release --recursive',
    );
  registerAssembliesList(assemblies, deps);
  registerAssembliesCreate(assemblies, deps);
  registerAssembliesUpdate(assemblies, deps);
  registerAssembliesDelete(assemblies, deps);
  registerAssembliesImport(assemblies, deps);
}
