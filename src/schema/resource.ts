/** The resource record and its insert/update bodies (contract §2, §7, §9). */
import type { Static } from 'typebox';
import { insertBody, record, recordId, time, updateBody, type Inner } from './json-schema.js';

/**
 * A resource as listed: `password` is write-only (always ""), `data` the
 * bytes in base64 (contract §2); `dataSize` (bytes of `data`) is lic serve's addition, so a
 * table can show sizes without fetching the data.
 */
export const ResourceSchema = record(
  {
    id: recordId,
    name: { type: 'string' },
    type: { type: 'string' },
    code: { type: 'string' },
    description: { type: 'string' },
    source: { type: 'string' },
    password: { type: 'string', description: 'always "" (write-only)' },
    createdAt: time,
    updatedAt: time,
    data: { type: 'string', contentEncoding: 'base64' },
    dataFormat: { type: 'string' },
    dataSize: { type: 'integer', description: 'bytes of data (lic serve extension)' },
  },
  'Resource',
);
export type Resource = Static<typeof ResourceSchema>;

const name256 = { type: 'string', maxLength: 256 } as const;
const text4096 = { type: 'string', maxLength: 4096 } as const;

/** `POST /v1/resources` body `{ resource }` (contract §7, §9); `id`, timestamps and `dataSize` are accepted and ignored. */
export const ResourceInsertBody = insertBody(
  'resource',
  {
    id: { type: 'integer', description: 'on insert: ignored (the service assigns ids)' },
    name: { type: 'string', minLength: 1, maxLength: 256, description: 'unique' },
    type: { ...name256, description: 'RSA (signing key pair), email (HTML template), or any other value' },
    code: { ...name256, description: 'unique when not empty' },
    description: text4096,
    source: text4096,
    password: {
      type: 'string',
      maxLength: 1024,
      writeOnly: true,
      description: 'write-only: stored, always returned as ""; on update "" leaves it unchanged',
    },
    createdAt: { type: 'string', maxLength: 64, readOnly: true, description: 'ignored: set by the service' },
    updatedAt: { type: 'string', maxLength: 64, readOnly: true, description: 'ignored: set by the service' },
    data: { type: 'string', contentEncoding: 'base64', description: 'the bytes, base64 (standard or URL-safe, padding optional)' },
    dataFormat: { ...name256, description: 'SNK for RSA key pairs, html for e-mail templates, or any other value' },
    dataSize: { type: 'integer', readOnly: true, description: 'ignored: computed from data' },
  },
  ['name'],
);

/** `PUT /v1/resources` body: the insert's fields, only those present change; `id` required (contract §7). */
export const ResourceUpdateBody = updateBody(ResourceInsertBody, 'resource');

/** The fields a caller sends to insert or change a resource: `data` is base64 of the bytes, `password` write-only (contract §2, §7). */
export type ResourceInput = Omit<Static<Inner<typeof ResourceUpdateBody>>, 'id' | 'createdAt' | 'updatedAt' | 'dataSize'>;
