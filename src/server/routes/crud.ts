/**
 * The operations a record's routes share (contract §4, §5, §7): the list of one table, the
 * delete of one record by id, and the SET clause of a partial update. Each route file keeps
 * what is its own (checks, columns, secrets); these are written once.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { Role } from '../../wire.js';
import { audited } from '../audit.js';
import type { ServiceContext } from '../context.js';
import type { Db } from '../db.js';
import { notFound } from '../errors.js';
import { compileListRequest, listPage, listQuerySchema, type ListParams, type ListSource } from '../list.js';
import { envelopeProperties, envelopeSchema, listResponse, selectable } from '../openapi.js';
import { OK, idSchema } from './common.js';

/** A GET list of one table, e.g. `/v1/resources` → `{ resources: [...], totalResourcesCount }`. */
export interface ListRoute {
  path: string;
  roles: readonly Role[];
  /** the OpenAPI summary (absent: none) */
  summary?: string;
  /** the reply's array and total fields */
  arrayField: string;
  totalField: string;
  /** the record's schema (src/schema/), every field selectable */
  schema: object;
  source: ListSource;
}

/** Declares GET `r.path`: one page of `r.source` by the list query (filter, sort, select, take, skip; contract §5). */
export function listRoute(app: FastifyInstance, ctx: ServiceContext, r: ListRoute): void {
  app.get<{ Querystring: ListParams }>(
    r.path,
    {
      config: { roles: r.roles },
      schema: {
        ...(r.summary ? { summary: r.summary } : {}),
        querystring: { type: 'object', properties: listQuerySchema },
        response: { 200: listResponse(r.arrayField, r.totalField, selectable(r.schema)) },
      },
    },
    async (req) => {
      const { records, total } = listPage(ctx.db, r.source, compileListRequest(r.source.spec, req.query));
      return { ...OK, [r.arrayField]: records, [r.totalField]: total };
    },
  );
}

/** A DELETE of one record by its id in the path, e.g. `/v1/resources/:resourceId`. */
export interface DeleteRoute {
  /** the collection's path; the route is `${path}/:${param}` */
  path: string;
  param: string;
  roles: readonly Role[];
  summary?: string;
  /** the SQL table */
  table: string;
  /** the record in the 404 message: `no ${what} with id 7` */
  what: string;
  /** runs after a delete, in its transaction (e.g. drop cached keys) */
  after?: () => void;
}

/** Declares DELETE `${r.path}/:${r.param}`: 404 when there is no such record, else deleted and audited with its id. */
export function deleteRoute(app: FastifyInstance, ctx: ServiceContext, r: DeleteRoute): void {
  const remove = ctx.db.prepare(`DELETE FROM ${r.table} WHERE id = ?`);
  app.delete<{ Params: Record<string, number> }>(
    `${r.path}/:${r.param}`,
    {
      config: { roles: r.roles },
      schema: {
        ...(r.summary ? { summary: r.summary } : {}),
        params: { type: 'object', properties: { [r.param]: idSchema }, required: [r.param] },
        response: { 200: envelopeSchema },
      },
    },
    async (req) =>
      audited(ctx, req, () => {
        const id = req.params[r.param]!;
        if (remove.run(id).changes === 0) throw notFound(`no ${r.what} with id ${id}`);
        req.audit = { recordId: id };
        r.after?.();
        return { ...OK };
      }),
  );
}

/** The reply schema of an insert: the envelope and the new record's id as `idField` (contract §2). */
const insertReply = (idField: string) =>
  ({ type: 'object', properties: { ...envelopeProperties, [idField]: { type: 'integer' } } }) as const;

/** INSERTs one row of `table` from `values` (column → value, in the table's column names); returns the new id. */
export function insertRow(db: Db, table: string, values: Record<string, unknown>): number {
  const columns = Object.keys(values);
  const sql = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
  return Number(db.prepare(sql).run(...Object.values(values)).lastInsertRowid);
}

/** A POST that inserts one record, e.g. `/v1/assemblies` with `{ assembly: {...} }`. */
export interface InsertRoute<B extends TSchema> {
  path: string;
  roles: readonly Role[];
  summary?: string;
  /** the body's schema (src/schema/), validated before `insert` runs */
  body: B;
  /** the reply's id field, e.g. `assemblyId` */
  idField: string;
  /** checks and stores the record (400/409 as ServiceError); returns its new id */
  insert: (body: Static<B>, req: FastifyRequest) => number;
}

/** Declares POST `r.path`: the insert, audited with the new id, replying `{ ...OK, [idField]: id }`. */
export function insertRoute<B extends TSchema>(app: FastifyInstance, ctx: ServiceContext, r: InsertRoute<B>): void {
  app.post(
    r.path,
    {
      config: { roles: r.roles },
      schema: { ...(r.summary ? { summary: r.summary } : {}), body: r.body, response: { 200: insertReply(r.idField) } },
    },
    async (req) =>
      audited(ctx, req, () => {
        // fastify validated the body against r.body before this runs
        const id = r.insert(req.body as Static<B>, req);
        req.audit = { recordId: id };
        return { ...OK, [r.idField]: id };
      }),
  );
}

/** A PUT that changes the fields present in the body (contract §7: a missing id is a 404). */
export interface UpdateRoute<B extends TSchema> {
  path: string;
  roles: readonly Role[];
  summary?: string;
  body: B;
  /** checks and applies the change; returns the record's id and the wire fields changed (for the audit, never values) */
  update: (body: Static<B>, req: FastifyRequest) => { id: number; changed: string[] };
}

/** Declares PUT `r.path`: the update, audited with the id and the fields changed, replying the envelope. */
export function updateRoute<B extends TSchema>(app: FastifyInstance, ctx: ServiceContext, r: UpdateRoute<B>): void {
  app.put(
    r.path,
    {
      config: { roles: r.roles },
      schema: { ...(r.summary ? { summary: r.summary } : {}), body: r.body, response: { 200: envelopeSchema } },
    },
    async (req) =>
      audited(ctx, req, () => {
        const { id, changed } = r.update(req.body as Static<B>, req);
        req.audit = { recordId: id, properties: { Changed: changed } };
        return { ...OK };
      }),
  );
}

/**
 * The columns a partial update (PUT with only the fields present) changes: `set` each one,
 * then `write`. `changed` lists the wire fields, for the audit (never the values).
 */
export class ColumnChanges {
  private readonly sets: string[] = [];
  private readonly params: unknown[] = [];
  readonly changed: string[] = [];

  /** `column = value`, for the wire field `field`. */
  set(field: string, column: string, value: unknown): void {
    this.sets.push(`${column} = ?`);
    this.params.push(value);
    this.changed.push(field);
  }

  /** `set` for each wire field of `columns` (field → column) that `body` has (not undefined), in that order. */
  setAll<T extends object>(body: T, columns: { [F in keyof T]?: string }): void {
    for (const [field, column] of Object.entries(columns) as [keyof T & string, string][]) {
      if (body[field] !== undefined) this.set(field, column, body[field]);
    }
  }

  /** UPDATE `table` row `id` when anything was set, with the `also` columns too (e.g. `updated_at`); nothing otherwise. */
  write(db: Db, table: string, id: number, also: Record<string, unknown> = {}): void {
    if (this.sets.length === 0) return;
    const sets = [...this.sets, ...Object.keys(also).map((c) => `${c} = ?`)];
    db.prepare(`UPDATE ${table} SET ${sets.join(', ')} WHERE id = ?`).run(...this.params, ...Object.values(also), id);
  }
}
