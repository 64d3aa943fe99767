import { deleteApiKey } from '../../client/endpoints/api-keys.js';
import { defineDelete } from '../../cli/delete-verb.js';

/** Declares `keys delete ID [--yes] [--dry-run]` (alias `rm`): confirms, then DELETE /v1/api-keys/{id}. */
export const registerKeysDelete = defineDelete({
  what: 'API key',
  article: 'an',
  remove: deleteApiKey,
  examples: [
    'lic keys delete 12',
    'lic keys delete 12 --dry-run',
    'lic keys list --revoked --all --fields id -o tsv | tail -n +2 | xargs -n1 lic keys delete --yes',
  ],
});
