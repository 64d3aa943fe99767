/** The product of a customer (contract §8). */
import type { Static } from 'typebox';
import { record, recordId, time } from './json-schema.js';

/** A product in a customer's product list; read-only here. */
export const CustomerProductSchema = record(
  {
    id: recordId,
    code: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    url: { type: 'string' },
    copyright: { type: 'string' },
    createdAt: time,
    image: { type: 'string' },
    price: { type: 'number', description: 'list price in `currency`' },
    resellerPrice: { type: 'number', description: 'price for resellers in `currency`' },
    currency: { type: 'string' },
    signatureKeysId: { type: 'integer', description: 'id of the resource that signs its licenses, 0 for none' },
  },
  'CustomerProduct',
);
export type CustomerProduct = Static<typeof CustomerProductSchema>;
