/** The order record (contract §8). */
import type { Static } from 'typebox';
import { optionalTime, record, recordId, time } from './json-schema.js';

/** An order of a customer; read-only here. */
export const OrderSchema = record(
  {
    id: recordId,
    orderNumber: { type: 'string' },
    status: { type: 'string' },
    processedBy: { type: 'string' },
    purchaseOrder: { type: 'string' },
    total: { type: 'number', description: 'order total in `currency`' },
    currency: { type: 'string' },
    createdAt: time,
    updatedAt: time,
    invoiceNumber: { type: 'string' },
    paymentType: { type: 'string' },
    paymentNumber: { type: 'string' },
    paymentStatus: { type: 'string' },
    paymentDate: { ...optionalTime, description: "RFC 3339 UTC, or '' when not paid" },
    description: { type: 'string' },
    customerId: { type: 'integer' },
    resellerId: { type: 'integer', description: 'customer id of the reseller, 0 for a direct sale' },
    createdById: { type: 'string' },
  },
  'Order',
);
export type Order = Static<typeof OrderSchema>;
