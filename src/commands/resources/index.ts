import { defineNoun } from '../../cli/noun.js';

/** `lic resources`: signing keys, e-mail templates and other files kept by the service (contract §7). Its verbs in help's order, each loaded only when needed (src/cli/noun.ts). */
export const loadResources = defineNoun(
  {
    name: 'resources',
    description: 'Manage resources: signing keys, e-mail templates, mapping files (Administrator, LicenseManager, Sales)',
    after:
      '\nExamples:\n  lic resources list --type RSA\n  lic resources create --name "Signing key" --type RSA --format SNK --data-file Keys.snk\n  lic resources export --profile staging | lic resources import - --profile prod',
  },
  [
    ['list', ['ls'], async () => (await import('./list.js')).registerResourcesList],
    ['get', [], async () => (await import('./get.js')).registerResourcesGet],
    ['create', [], async () => (await import('./create.js')).registerResourcesCreate],
    ['update', [], async () => (await import('./update.js')).registerResourcesUpdate],
    ['delete', ['rm'], async () => (await import('./delete.js')).registerResourcesDelete],
    ['export', [], async () => (await import('./export.js')).registerResourcesExport],
    ['import', [], async () => (await import('./import.js')).registerResourcesImport],
  ],
);
