/**
 * What many test files share: the service a file's tests run against (useService), the
 * wire field lists of the records, and reading `-o ndjson` output back.
 */
import { afterAll, beforeAll } from 'vitest';
import { envFor } from './cli.js';
import { startTestService, type TestService } from './service.js';

/** The records of `-o ndjson` output: one JSON object a line, blank lines ignored (T: what the test expects each to be). */
export const ndjson = <T = Record<string, unknown>>(out: string): T[] =>
  out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);

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
