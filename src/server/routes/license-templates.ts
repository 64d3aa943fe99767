import type { FastifyInstance } from 'fastify';
import type { Role } from '../../wire.js';
import type { ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { compileListRequest, listPage, listQuerySchema, type ListParams, type ListSource } from '../list.js';
import { LicenseTemplateSchema } from '../../schema/license-template.js';
import { listFields } from '../fields.js';
import { listResponse, selectable } from '../openapi.js';
import { OK, idSchema } from './common.js';

/** A JSON column (text written by the seed loader) → its value; a non-array is a corrupt row (500). */
function jsonArray(v: unknown): unknown[] {
  const parsed: unknown = JSON.parse(typeof v === 'string' && v !== '' ? v : '[]');
  if (!Array.isArray(parsed)) throw new Error('license_templates: a JSON column does not hold an array');
  return parsed;
}

/** Template assemblies: a copy with id 0 describes no assembly record, so it carries no id at all (contract §8). */
function templateAssemblies(v: unknown): unknown[] {
  return jsonArray(v).map((a) => {
    if (!a || typeof a !== 'object') return a;
    const { id, ...rest } = a as { id?: unknown };
    return typeof id === 'number' && id > 0 ? { id, ...rest } : rest;
  });
}

/** Features and restrictions: an expiry that is not set is null, never "" (contract §2). */
function withNullExpiry(v: unknown): unknown[] {
  return jsonArray(v).map((x) =>
    x && typeof x === 'object' && (x as { expireDate?: unknown }).expireDate === '' ? { ...x, expireDate: null } : x,
  );
}

/** A JSON object built in SQL (`json_object`) → the object. */
const jsonObject = (v: unknown): unknown => JSON.parse(String(v));

/**
 * Fields of a license template. `product` is built from the
 * product and the release the template belongs to (`id` as a string, `version` the
 * release's); the array fields come from JSON columns and can be selected but not
 * filtered or sorted on (contract §5, §8).
 */
export const licenseTemplateSource: ListSource = {
  from: 'license_templates t JOIN products p ON p.id = t.product_id JOIN releases r ON r.id = t.release_id',
  spec: {
    fields: listFields(LicenseTemplateSchema, 't', {
      product: {
        column: `json_object('id', CAST(p.id AS TEXT), 'name', p.name, 'version', r.version, 'copyright', p.copyright, 'url', p.url, 'description', p.description)`,
        toWire: jsonObject,
      },
      components: { toWire: jsonArray },
      assemblies: { toWire: templateAssemblies },
      fields: { toWire: jsonArray },
      features: { toWire: withNullExpiry },
      restrictions: { toWire: withNullExpiry },
    }),
    defaultSort: [{ name: 'id', desc: false }],
  },
};

/** Roles of `GET /v1/products/{productId}/releases/{releaseId}/license-templates` (spec, License templates). */
const LICENSE_TEMPLATE_ROLES: readonly Role[] = ['Administrator', 'LicenseManager'];

/** JSON schema of a LicenseTemplate on the wire. */
const licenseTemplateSchema = selectable(LicenseTemplateSchema);

/**
 * `GET /v1/products/{productId}/releases/{releaseId}/license-templates` (spec, License
 * templates; contract §5, §8): 404 for an unknown product, or a release that is not one
 * of that product's.
 */
export async function licenseTemplateRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const { db } = ctx;
  const productExists = db.prepare<[number], number>('SELECT 1 FROM products WHERE id = ?').pluck();
  const releaseProduct = db.prepare<[number], number>('SELECT product_id FROM releases WHERE id = ?').pluck();

  app.get<{ Params: { productId: number; releaseId: number }; Querystring: ListParams }>(
    '/v1/products/:productId/releases/:releaseId/license-templates',
    {
      config: { roles: LICENSE_TEMPLATE_ROLES },
      schema: {
        summary: 'List the license templates of a product release',
        params: {
          type: 'object',
          properties: { productId: idSchema, releaseId: idSchema },
          required: ['productId', 'releaseId'],
        },
        querystring: { type: 'object', properties: listQuerySchema },
        response: { 200: listResponse('licenseTemplates', 'totalLicenseTemplatesCount', licenseTemplateSchema) },
      },
    },
    async (req) => {
      const { productId, releaseId } = req.params;
      if (!productExists.get(productId)) throw notFound(`no product with id ${productId}`);
      const owner = releaseProduct.get(releaseId);
      if (owner !== productId) throw notFound(`product ${productId} has no release with id ${releaseId}`);
      const { records, total } = listPage(db, licenseTemplateSource, compileListRequest(licenseTemplateSource.spec, req.query), {
        where: 't.product_id = ? AND t.release_id = ?',
        params: [productId, releaseId],
      });
      return { ...OK, licenseTemplates: records, totalLicenseTemplatesCount: total };
    },
  );
}
