/** The API key record and its insert/update bodies (contract §4): declared once, for the service, the OpenAPI document, the client and the CLI. */
import type { Static } from 'typebox';
import { insertBody, optionalTime, record, recordId, time, updateBody, type Inner } from './json-schema.js';

/** An API key as listed (contract §4); never carries the full secret, only its prefix. */
export const ApiKeySchema = record(
  {
    id: recordId,
    name: { type: 'string' },
    ownerId: { type: 'string' },
    permissions: { type: 'integer', minimum: 0, maximum: 7, description: 'bitmask: Read 1, Write 2, Delete 4' },
    description: { type: 'string' },
    createdAt: time,
    expireDate: optionalTime,
    revoked: { type: 'boolean' },
    keyPrefix: { type: 'string', description: 'the first 8 characters of the key, e.g. api_u3o7 (never the key)' },
  },
  'ApiKey',
);
export type ApiKey = Static<typeof ApiKeySchema>;

/**
 * `POST /v1/api-keys` body `{ apiKey }`: an insert ignores an id (the service assigns ids)
 * and takes no `revoked`: a key is born usable (contract §4).
 */
export const ApiKeyInsertBody = insertBody(
  'apiKey',
  {
    name: { type: 'string', maxLength: 256 },
    ownerId: { type: 'string', maxLength: 256 },
    permissions: { type: 'integer', minimum: 0, maximum: 7 },
    description: { type: 'string', maxLength: 4096 },
    expireDate: { type: 'string', maxLength: 64 },
    id: { type: 'integer', description: 'on insert: ignored (the service assigns ids)' },
  },
  ['permissions'],
);

/** `PUT /v1/api-keys` body: the insert's fields, `id` required; expireDate null clears the expiry (contract §2), `revoked` settable. */
export const ApiKeyUpdateBody = updateBody(ApiKeyInsertBody, 'apiKey', {
  expireDate: { type: ['string', 'null'], maxLength: 64 },
  revoked: { type: 'boolean' },
});

/** The fields a caller may send to insert (POST) or change (PUT, with the id) an API key. */
export type ApiKeyInput = Omit<Static<Inner<typeof ApiKeyUpdateBody>>, 'id'>;
