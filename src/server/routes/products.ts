import type { FastifyInstance } from 'fastify';
import type { CustomerProduct, Role } from '../../wire.js';
import type { ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { fieldToWire } from '../list.js';
import { CustomerProductSchema } from '../../schema/customer-product.js';
import { listFields } from '../fields.js';
import { listResponse, selectable } from '../openapi.js';
import type { FieldSpec } from '../query/types.js';
import { OK, callerOf } from './common.js';

/** Fields of a product in a customer's product list, from its schema. */
export const customerProductFields: readonly FieldSpec[] = listFields(CustomerProductSchema, 'p');

/** Role of `GET /v1/customer/{customerCode}/products` (spec, Products of a customer). */
const CUSTOMER_PRODUCT_ROLES: readonly Role[] = ['Customer'];

/** JSON schema of a CustomerProduct on the wire. */
const customerProductSchema = selectable(CustomerProductSchema);

/**
 * `GET /v1/customer/{customerCode}/products` (spec, Products of a customer; contract §3,
 * §8): role Customer, and only the caller's own customer code: any other code, existing
 * or not, is a 404 with the same message, so codes can't be probed. No paging, no total,
 * no query parameters (an unknown one is a 400 rather than silently ignored).
 */
export async function customerProductRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const { db } = ctx;
  const cols = customerProductFields.map((f) => f.column).join(', ');
  const products = db
    .prepare<[string], unknown[]>(
      `SELECT ${cols} FROM customers c
         JOIN customer_products cp ON cp.customer_id = c.id
         JOIN products p ON p.id = cp.product_id
        WHERE c.code = ? ORDER BY p.id`,
    )
    .raw();
  const customerExists = db.prepare<[string], number>('SELECT 1 FROM customers WHERE code = ?').pluck();

  app.get<{ Params: { customerCode: string } }>(
    '/v1/customer/:customerCode/products',
    {
      config: { roles: CUSTOMER_PRODUCT_ROLES },
      schema: {
        summary: "List the products of the caller's own customer",
        params: {
          type: 'object',
          properties: {
            customerCode: {
              type: 'string',
              minLength: 1,
              maxLength: 256,
              description: 'customer code, `C-` + 8 of [A-Z0-9] (contract §3)',
            },
          },
          required: ['customerCode'],
        },
        querystring: { type: 'object', properties: {}, additionalProperties: false },
        response: { 200: listResponse('products', undefined, customerProductSchema) },
      },
    },
    async (req) => {
      const code = req.params.customerCode;
      const own = callerOf(req).customerCode;
      if (own !== code || !customerExists.get(code)) throw notFound(`no customer with code ${JSON.stringify(code)}`);
      const rows = products.all(code);
      const list = rows.map((r) => {
        const rec: Record<string, unknown> = {};
        customerProductFields.forEach((f, i) => (rec[f.name] = fieldToWire(f, r[i])));
        return rec as unknown as CustomerProduct;
      });
      return { ...OK, products: list };
    },
  );
}
