import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';
import { badRequest, conflict, notFound } from '../errors.js';
import type { ListSource } from '../list.js';
import { ResourceInsertBody, ResourceSchema, ResourceUpdateBody, type ResourceInput } from '../../schema/resource.js';
import { listFields } from '../fields.js';
import { ColumnChanges, deleteRoute, insertRoute, insertRow, listRoute, updateRoute } from './crud.js';
import type { Role } from '../../wire.js';

/** Roles of every `/v1/resources` operation (spec, Resources). */
const RESOURCE_ROLES: readonly Role[] = ['Administrator', 'LicenseManager', 'Sales'];

/** Stored BLOB (a Buffer from better-sqlite3) → base64 on the wire (contract §2). */
const blobToBase64 = (v: unknown): string =>
  v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') : '';

/**
 * Fields of a resource in lists (contract §2, §7). `data` is selectable but
 * neither filterable nor sortable; `password` is write-only: its column is the literal `''`,
 * so the stored value is never read, returned or matched by a filter (a filter on it would
 * let a caller guess it). `dataSize` (bytes of `data`) is our addition, so a table can show
 * sizes without fetching the data: `select=Id,Name,DataSize`.
 */
export const resourceSource: ListSource = {
  from: 'resources r',
  spec: {
    fields: listFields(ResourceSchema, 'r', {
      password: { column: "''", queryable: false, toWire: () => '' },
      data: { queryable: false, toWire: blobToBase64 },
      // length() of a BLOB reads the record header only, not the bytes
      dataSize: { column: 'length(r.data)' },
    }),
    defaultSort: [{ name: 'id', desc: false }],
  },
};

/** Any body's resource, as checkUnique reads it. */
type ResourceBody = Partial<ResourceInput>;

/**
 * Decodes protobuf-JSON `bytes`: standard or URL-safe base64, padding optional (the
 * protobuf JSON mapping accepts all four). Throws a 400 naming `field` for anything else.
 */
function decodeBase64Field(value: string, field: string): Buffer {
  const body = value.replace(/={1,2}$/, '');
  const padded = body.length !== value.length;
  if (!/^[A-Za-z0-9+/_-]*$/.test(body) || body.length % 4 === 1 || (padded && value.length % 4 !== 0)) {
    throw badRequest(`${field} must be base64 (RFC 4648, standard or URL-safe alphabet)`, field);
  }
  return Buffer.from(body, 'base64');
}

/** `/v1/resources`: list, insert, update, delete (contract §2, §7, §9). */
export async function resourceRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const { db } = ctx;
  const nameOwner = db.prepare<[string], number>('SELECT id FROM resources WHERE name = ?').pluck();
  const codeOwner = db.prepare<[string], number>("SELECT id FROM resources WHERE code = ? AND code <> ''").pluck();
  const exists = db.prepare<[number], number>('SELECT 1 FROM resources WHERE id = ?').pluck();

  /** 409 naming the field when name or a non-empty code is taken by another resource (contract §1, §9). */
  function checkUnique(r: ResourceBody, selfId: number | null): void {
    if (r.name !== undefined) {
      const owner = nameOwner.get(r.name);
      if (owner !== undefined && owner !== selfId) {
        throw conflict(`resource.name "${r.name}" is already taken by resource ${owner}`, 'resource.name');
      }
    }
    if (r.code !== undefined && r.code !== '') {
      const owner = codeOwner.get(r.code);
      if (owner !== undefined && owner !== selfId) {
        throw conflict(`resource.code "${r.code}" is already taken by resource ${owner}`, 'resource.code');
      }
    }
  }

  listRoute(app, ctx, {
    path: '/v1/resources',
    roles: RESOURCE_ROLES,
    summary: 'List resources',
    arrayField: 'resources',
    totalField: 'totalResourcesCount',
    schema: ResourceSchema,
    source: resourceSource,
  });

  insertRoute(app, ctx, {
    path: '/v1/resources',
    roles: RESOURCE_ROLES,
    summary: 'Insert a resource',
    body: ResourceInsertBody,
    idField: 'resourceId',
    insert: ({ resource: r }) => {
      const data = r.data === undefined ? Buffer.alloc(0) : decodeBase64Field(r.data, 'resource.data');
      checkUnique(r, null);
      const now = ctx.now().getTime();
      return insertRow(db, 'resources', {
        name: r.name,
        type: r.type ?? '',
        code: r.code ?? '',
        description: r.description ?? '',
        source: r.source ?? '',
        password: ctx.sealSecret(r.password ?? ''),
        created_at: now,
        updated_at: now,
        data,
        data_format: r.dataFormat ?? '',
      });
    },
  });

  updateRoute(app, ctx, {
    path: '/v1/resources',
    roles: RESOURCE_ROLES,
    summary: 'Update a resource: only the fields present change',
    body: ResourceUpdateBody,
    update: ({ resource: r }) => {
      const data = r.data === undefined ? undefined : decodeBase64Field(r.data, 'resource.data');
      if (!exists.get(r.id)) throw notFound(`no resource with id ${r.id}`);
      checkUnique(r, r.id);
      const changes = new ColumnChanges();
      changes.setAll(r, { name: 'name', type: 'type', code: 'code', description: 'description', source: 'source' });
      // the password reads back as "": a record sent back unchanged must not wipe it
      if (r.password !== undefined && r.password !== '') changes.set('password', 'password', ctx.sealSecret(r.password));
      if (data !== undefined) changes.set('data', 'data', data);
      if (r.dataFormat !== undefined) changes.set('dataFormat', 'data_format', r.dataFormat);
      changes.write(db, 'resources', r.id, { updated_at: ctx.now().getTime() });
      // field names only: never the data or the password
      return { id: r.id, changed: changes.changed };
    },
  });

  deleteRoute(app, ctx, {
    path: '/v1/resources',
    param: 'resourceId',
    roles: RESOURCE_ROLES,
    summary: 'Delete a resource',
    table: 'resources',
    what: 'resource',
  });
}
