/**
 * What many test files share: the service a file's tests run against (useService), the
 * wire field lists of the records, one record collection over raw HTTP (recordsOf: insert,
 * update, list, get, create with defaults, count), and reading `-o ndjson` output back.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { envFor } from './cli.js';
import { http, startTestService, type TestService } from './service.js';

/** The records of `-o ndjson` output: one JSON object a line, blank lines ignored (T: what the test expects each to be). */
export const ndjson = <T = Record<string, unknown>>(out: string): T[] =>
  out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);

/** A list query string from its parameters, each value URL-encoded: `?filter=Id%20%3D%201&take=0`. */
export const query = (params: Record<string, string | number>): string =>
  '?' +
  Object.entries(params)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

/** A record collection of the API (contract §4, §7): its path, the body's wrapper, the reply's fields. */
export interface Collection {
  /** `/v1/assemblies` */
  path: string;
  /** the insert/update body's key: `{ assembly: {...} }` */
  wrapper: string;
  /** the list reply's array and total, the insert reply's id */
  arrayField: string;
  totalField: string;
  idField: string;
}

export const ASSEMBLIES: Collection = {
  path: '/v1/assemblies',
  wrapper: 'assembly',
  arrayField: 'assemblies',
  totalField: 'totalAssembliesCount',
  idField: 'assemblyId',
};
export const RESOURCES: Collection = {
  path: '/v1/resources',
  wrapper: 'resource',
  arrayField: 'resources',
  totalField: 'totalResourcesCount',
  idField: 'resourceId',
};

/**
 * Raw HTTP on one collection of `svc` with the Administrator key unless another is given:
 * `post`/`put` a record, `list` with a query string, `get` one by id (undefined when absent),
 * `create` one from `defaults()` and `fields` (asserting a 200; → its id), `count` them all.
 */
export function recordsOf(svc: TestService, c: Collection, defaults: () => Record<string, unknown>) {
  const post = (record: unknown, key = svc.adminKey) => http(svc, 'POST', c.path, { key, body: { [c.wrapper]: record } });
  const put = (record: unknown, key = svc.adminKey) => http(svc, 'PUT', c.path, { key, body: { [c.wrapper]: record } });
  const list = (q = '', key = svc.adminKey) => http(svc, 'GET', `${c.path}${q}`, { key });
  return {
    post,
    put,
    list,
    async get(id: number) {
      const r = await list(query({ filter: `Id = ${id}` }));
      expect(r.status).toBe(200);
      return r.body[c.arrayField][0];
    },
    async create(fields: Record<string, unknown> = {}): Promise<number> {
      const r = await post({ ...defaults(), ...fields });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body[c.idField] as number;
    },
    count: async () => (await list(query({ take: 0 }))).body[c.totalField] as number,
  };
}

/** An Order's wire fields in the order the service sends them (and `-o csv` heads its columns). */
export const ORDER_FIELDS = [
  'id',
  'orderNumber',
  'status',
  'processedBy',
  'purchaseOrder',
  'total',
  'currency',
  'createdAt',
  'updatedAt',
  'invoiceNumber',
  'paymentType',
  'paymentNumber',
  'paymentStatus',
  'paymentDate',
  'description',
  'customerId',
  'resellerId',
  'createdById',
] as const;

/** A CustomerProduct's wire fields in the order the service sends them. */
export const PRODUCT_FIELDS = [
  'id',
  'code',
  'name',
  'description',
  'url',
  'copyright',
  'createdAt',
  'image',
  'price',
  'resellerPrice',
  'currency',
  'signatureKeysId',
] as const;

/** What useService gives a test file: the running service and the environment that points the CLI at it with the Administrator key. */
export interface ServiceHandle {
  /** the service, once the beforeAll has started it (a stand-in that forwards to it; throws if read before) */
  svc: TestService;
  /** LIC_BASE_URL and LIC_API_KEY (the Administrator key); one object, filled in by the beforeAll */
  env: Record<string, string>;
}

/**
 * Starts the reference service (startTestService(opts): port 0, in-memory database) in a
 * beforeAll of the calling file or describe and closes it in an afterAll:
 * `const { svc, env } = useService({ seed: 'demo' })` at the top, then `svc` and `env` in
 * tests and later hooks as if they were the service and its environment. A set-up that needs
 * the service goes in its own beforeAll after this call (hooks run in the order declared).
 */
export function useService(opts: Parameters<typeof startTestService>[0] = {}): ServiceHandle {
  let started: TestService | undefined;
  const running = (): TestService => {
    if (!started) throw new Error('useService: the service starts in beforeAll; use svc inside a test or a hook');
    return started;
  };
  const env: Record<string, string> = {};
  beforeAll(async () => {
    started = await startTestService(opts);
    Object.assign(env, envFor(started, started.adminKey));
  });
  afterAll(() => started?.close());
  // forwards every read and write to the started service, so `svc.db`, `svc.url`, `svc.close()` read as usual
  const svc = new Proxy({} as TestService, {
    get: (_, key) => Reflect.get(running(), key),
    set: (_, key, value) => Reflect.set(running(), key, value),
  });
  return { svc, env };
}
