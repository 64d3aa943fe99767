import { deleteResource } from '../../client/endpoints/resources.js';
import { defineDelete } from '../../cli/delete-verb.js';

/** Declares `resources delete ID [--yes] [--dry-run]` (alias `rm`): confirms, then DELETE /v1/resources/{id}. */
export const registerResourcesDelete = defineDelete({
  what: 'resource',
  article: 'a',
  remove: deleteResource,
  examples: ['lic resources delete 4', 'lic resources delete 4 --dry-run', 'lic resources delete 4 --yes'],
});
