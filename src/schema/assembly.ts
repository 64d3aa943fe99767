/** The assembly record and its insert/update bodies (contract §7). */
import type { Static } from 'typebox';
import { INT32_MAX, insertBody, record, recordId, updateBody, type Inner } from './json-schema.js';

/** An assembly as listed (contract §7). */
export const AssemblySchema = record(
  {
    id: recordId,
    name: { type: 'string' },
    version: { type: 'string' },
    culture: { type: 'string' },
    publicKeyToken: { type: 'string' },
    mappingFileId: { type: 'integer' },
    debugSymbolsKey: { type: 'string' },
  },
  'Assembly',
);
export type Assembly = Static<typeof AssemblySchema>;

/** `POST /v1/assemblies` body `{ assembly }`; `name` required, an id is ignored (contract §7). */
export const AssemblyInsertBody = insertBody(
  'assembly',
  {
    id: { type: 'integer', description: 'on insert: ignored (the service assigns ids)' },
    name: { type: 'string', minLength: 1, maxLength: 256, description: 'simple name, e.g. System.Xml.Linq' },
    version: { type: 'string', maxLength: 64, description: 'a.b.c.d, each 0..65535, or "" for none' },
    culture: { type: 'string', maxLength: 256, description: 'culture name such as de or zh-Hans; "" or "neutral" for none (stored as "")' },
    publicKeyToken: { type: 'string', maxLength: 64, description: '16 hex digits, or "" when not strong-named; stored lowercase' },
    mappingFileId: {
      type: 'integer',
      minimum: 0,
      maximum: INT32_MAX,
      description: 'id of a resource (the obfuscation mapping file), or 0 for none',
    },
    debugSymbolsKey: { type: 'string', maxLength: 4096 },
  },
  ['name'],
);

/** `PUT /v1/assemblies` body: the insert's fields, only those present change; `id` required (contract §7). */
export const AssemblyUpdateBody = updateBody(AssemblyInsertBody, 'assembly');

/** The fields a caller may send to insert or change an assembly (contract §7). */
export type AssemblyInput = Omit<Static<Inner<typeof AssemblyUpdateBody>>, 'id'>;
