/** `/v1/assemblies` (contract §7). */
import type { AssemblyInput, AssemblyList } from '../../wire.js';
import { collectionEndpoints } from './collection.js';

/** The writable fields, from the record's schema (src/schema/). */
export type { AssemblyInput };

/** GET, POST (→ `assemblyId`), PUT and DELETE of /v1/assemblies (./collection.ts). */
export const {
  list: listAssemblies,
  create: createAssembly,
  update: updateAssembly,
  remove: deleteAssembly,
} = collectionEndpoints<AssemblyInput, AssemblyList, 'assemblyId'>('/v1/assemblies', 'assembly', 'assemblyId');
