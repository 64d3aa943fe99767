import type { Command } from 'commander';
import type { CommandDeps } from '../../cli/deps.js';
import { registerResourcesCreate } from './create.js';
import { registerResourcesDelete } from './delete.js';
import { registerResourcesExport } from './export.js';
import { registerResourcesGet } from './get.js';
import { registerResourcesImport } from './import.js';
import { registerResourcesList } from './list.js';
import { registerResourcesUpdate } from './update.js';

/** `lic resources`: signing keys, e-mail templates and other files kept by the service (contract §7). */
export function registerResources(program: Command, deps: CommandDeps): void {
  const resources = program
    .command('resources')
    .description('Manage resources: signing keys, e-mail templates, mapping files (Administrator, LicenseManager, Sales)')
    .addHelpText(
      'after',
      '\nExamples:\n  lic resources list --type RSA\n  lic resources create --name "Signing key" --type RSA --format SNK --data-file Keys.snk\n  lic resources export --profile staging | lic resources import - --profile prod',
    );
  registerResourcesList(resources, deps);
  registerResourcesGet(resources, deps);
  registerResourcesCreate(resources, deps);
  registerResourcesUpdate(resources, deps);
  registerResourcesDelete(resources, deps);
  registerResourcesExport(resources, deps);
  registerResourcesImport(resources, deps);
}
