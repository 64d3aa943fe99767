/** The envelope every response body carries (spec, Common rules §2; contract §1), declared once for the service's schemas and the client's types. */
import type { Static } from 'typebox';

/** The envelope's fields, as JSON-schema properties. */
export const envelopeProperties = {
  success: { type: 'boolean' },
  code: { type: 'integer', description: 'gRPC status number: 0 OK, 3, 5, 6, 7, 8, 13, 16 (contract §1)' },
  message: { type: 'string' },
} as const;

/** A reply's envelope: success, code, message, and on a failure maybe `details` naming the field at fault (contract §1). */
export const EnvelopeSchema = {
  type: 'object',
  required: ['success', 'code', 'message'],
  properties: {
    ...envelopeProperties,
    details: {
      type: 'array',
      items: { type: 'object', required: ['field', 'reason'], properties: { field: { type: 'string' }, reason: { type: 'string' } } },
    },
  },
} as const;
export type Envelope = Static<typeof EnvelopeSchema>;
