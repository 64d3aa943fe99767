/** `/v1/resources` (contract §2, §7). */
import type { ResourceInput, ResourceList } from '../../wire.js';
import { collectionEndpoints } from './collection.js';

/** The writable fields, from the record's schema (src/schema/). */
export type { ResourceInput };

/** GET, POST (→ `resourceId`), PUT and DELETE of /v1/resources (./collection.ts). */
export const {
  list: listResources,
  create: createResource,
  update: updateResource,
  remove: deleteResource,
} = collectionEndpoints<ResourceInput, ResourceList, 'resourceId'>('/v1/resources', 'resource', 'resourceId');
