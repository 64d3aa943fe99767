import type { FastifyInstance } from 'fastify';
import type { Role } from '../../wire.js';
import type { ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { listPage, listQuerySchema, type ListParams, type ListSource } from '../list.js';
import { OK, idSchema } from './common.js';
import { listResponse, recordSchema } from '../openapi.js';

/** Fields of an order (spec Order); paymentDate is '' when unset (contract §2, §8). */
export const orderSource: ListSource = {
  from: 'orders o',
  spec: {
    fields: [
      { name: 'id', column: 'o.id', type: 'int' },
      { name: 'orderNumber', column: 'o.order_number', type: 'string' },
      { name: 'status', column: 'o.status', type: 'string' },
      { name: 'processedBy', column: 'o.processed_by', type: 'string' },
      { name: 'purchaseOrder', column: 'o.purchase_order', type: 'string' },
      { name: 'total', column: 'o.total', type: 'number' },
      { name: 'currency', column: 'o.currency', type: 'string' },
      { name: 'createdAt', column: 'o.created_at', type: 'timestamp' },
      { name: 'updatedAt', column: 'o.updated_at', type: 'timestamp' },
      { name: 'invoiceNumber', column: 'o.invoice_number', type: 'string' },
      { name: 'paymentType', column: 'o.payment_type', type: 'string' },
      { name: 'paymentNumber', column: 'o.payment_number', type: 'string' },
      { name: 'paymentStatus', column: 'o.payment_status', type: 'string' },
      { name: 'paymentDate', column: 'o.payment_date', type: 'timestamp' },
      { name: 'description', column: 'o.description', type: 'string' },
      { name: 'customerId', column: 'o.customer_id', type: 'int' },
      { name: 'resellerId', column: 'o.reseller_id', type: 'int' },
      { name: 'createdById', column: 'o.created_by_id', type: 'string' },
    ],
    defaultSort: [{ name: 'id', desc: false }],
  },
};

/** Roles of `GET /v1/customers/{customerId}/orders` (spec, Customer orders). */
const ORDER_ROLES: readonly Role[] = ['Administrator', 'Sales'];

/** JSON schema of an Order on the wire (spec Order), for serialisation and the OpenAPI document. */
const orderSchema = recordSchema('Order', orderSource.spec.fields, {
  total: 'order total in `currency`',
  paymentDate: "RFC 3339 UTC, or '' when not paid",
  resellerId: 'customer id of the reseller, 0 for a direct sale',
});

/** `GET /v1/customers/{customerId}/orders` (spec, Customer orders; contract §5, §8): 404 for an unknown customer. */
export async function orderRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const { db } = ctx;
  const customerExists = db.prepare<[number], number>('SELECT 1 FROM customers WHERE id = ?').pluck();

  app.get<{ Params: { customerId: number }; Querystring: ListParams }>(
    '/v1/customers/:customerId/orders',
    {
      config: { roles: ORDER_ROLES },
      schema: {
        summary: "List a customer's orders",
        params: { type: 'object', properties: { customerId: idSchema }, required: ['customerId'] },
        querystring: { type: 'object', properties: listQuerySchema },
        response: { 200: listResponse('orders', 'totalOrdersCount', orderSchema) },
      },
    },
    async (req) => {
      const id = req.params.customerId;
      if (!customerExists.get(id)) throw notFound(`no customer with id ${id}`);
      const { records, total } = listPage(db, orderSource, req.query, { where: 'o.customer_id = ?', params: [id] });
      return { ...OK, orders: records, totalOrdersCount: total };
    },
  );
}
