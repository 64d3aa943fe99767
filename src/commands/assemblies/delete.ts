import { deleteAssembly } from '../../client/endpoints/assemblies.js';
import { defineDelete } from '../../cli/delete-verb.js';

/** Declares `assemblies delete ID [--yes] [--dry-run]` (alias `rm`): confirms, then DELETE /v1/assemblies/{id}. */
export const registerAssembliesDelete = defineDelete({
  what: 'assembly',
  article: 'an',
  remove: deleteAssembly,
  examples: [
    'lic assemblies delete 3',
    'lic assemblies delete 3 --dry-run',
    'lic assemblies list --name Folio.Pdf --all --fields id -o tsv | tail -n +2 | xargs -n1 lic assemblies delete --yes',
  ],
});
