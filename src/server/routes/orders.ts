import type { FastifyInstance } from 'fastify';
import type { Role } from '../../wire.js';
import type { ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { compileListRequest, listPage, listQuerySchema, type ListParams, type ListSource } from '../list.js';
import { OK, idSchema } from './common.js';
import { OrderSchema } from '../../schema/order.js';
import { listFields } from '../fields.js';
import { listResponse, selectable } from '../openapi.js';

/** Fields of an order, from its schema; paymentDate is '' when unset (contract §2, §8). */
export const orderSource: ListSource = {
  from: 'orders o',
  spec: { fields: listFields(OrderSchema, 'o'), defaultSort: [{ name: 'id', desc: false }] },
};

/** Roles of `GET /v1/customers/{customerId}/orders` (spec, Customer orders). */
const ORDER_ROLES: readonly Role[] = ['Administrator', 'Sales'];

/** JSON schema of an Order on the wire, for serialisation and the OpenAPI document. */
const orderSchema = selectable(OrderSchema);

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
      const { records, total } = listPage(db, orderSource, compileListRequest(orderSource.spec, req.query), {
        where: 'o.customer_id = ?',
        params: [id],
      });
      return { ...OK, orders: records, totalOrdersCount: total };
    },
  );
}
