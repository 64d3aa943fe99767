/**
 * The two services the `lic apply` and `lic diff` tests run against: `src`, a real service
 * seeded with the demo dataset, and `dst`, a second one with only src's users (users are not
 * part of the API) and one key of its own (`ops`, the key lic runs with), behind a recording
 * proxy that can fail a chosen request. In a beforeAll, src's configuration is exported
 * (`lic state export --data-dir`) to `file`; with `applied`, it is then applied to dst.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { envFor, runCli, tempDir } from '../../helpers/cli.js';
import { startRecordingProxy, type RecordingProxy } from '../../helpers/recording-proxy.js';
import { startTestService, type TestService } from '../../helpers/service.js';

/** The request the proxy fails (HTTP 500): the `nth` one that starts with `method path`. */
export type Failing = { nth: number; method: string; path: string } | undefined;

/** A stand-in that forwards every read to what `get()` returns once the beforeAll has set it. */
const standIn = <T extends object>(get: () => T | undefined, what: string): T =>
  new Proxy({} as T, {
    get: (_, key) => {
      const t = get();
      if (!t) throw new Error(`useTwoServices: ${what} starts in beforeAll; use it inside a test or a hook`);
      return Reflect.get(t, key);
    },
  });

/**
 * Starts both services and the proxy, exports src to `file` (and applies it to dst with
 * `applied`); `failing()` says which request the proxy fails, read at each request.
 */
export function useTwoServices(o: { failing?: () => Failing; applied?: boolean } = {}) {
  let src: TestService | undefined;
  let dst: TestService | undefined;
  let proxy: RecordingProxy | undefined;
  const dir = tempDir('lic-state-');
  const file = join(dir, 'licensing.yaml');

  beforeAll(async () => {
    src = await startTestService({ seed: 'demo' });
    // the second service has the same users (the API can't make users) and one key of its own
    const users = src.db.prepare('SELECT id, name, email, role, customer_code AS customerCode FROM users ORDER BY id').all() as {
      customerCode: string | null;
    }[];
    const customers = src.db
      .prepare('SELECT id, code, name, email, country FROM customers WHERE code IN (SELECT customer_code FROM users)')
      .all();
    const seed = join(dir, 'users.json');
    writeFileSync(
      seed,
      JSON.stringify({
        users: users.map((u) => (u.customerCode ? u : { ...u, customerCode: undefined })),
        customers: (customers as object[]).map((c) => ({ ...c, createdAt: '2025-01-01T00:00:00Z' })),
        apiKeys: [{ ownerId: 'admin', name: 'ops', permissions: 7, description: 'the key lic runs with' }],
      }),
    );
    dst = await startTestService({ seed });
    let count = 0;
    proxy = await startRecordingProxy(dst.url, {
      fail: (req) => {
        const failing = o.failing?.();
        if (!failing || !req.startsWith(`${failing.method} ${failing.path}`) || ++count !== failing.nth) return undefined;
        return { status: 500, body: { success: false, code: 13, message: 'injected failure' } };
      },
    });
    // the state file of the demo's configuration, its resources' data in data/
    const r = await runCli(['state', 'export', '--data-dir', join(dir, 'data')], { env: envFor(src, src.adminKey) });
    expect(r.code, r.stderr).toBe(0);
    writeFileSync(file, r.stdout);
    if (o.applied) {
      const a = await runCli(['apply', '-f', file], { env: envFor(dst, dst.adminKey) });
      expect(a.code, a.stderr).toBe(0);
    }
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([src?.close(), dst?.close()]);
  });

  const srcIn = standIn(() => src, 'src');
  const dstIn = standIn(() => dst, 'dst');
  const proxyIn = standIn(() => proxy, 'the proxy');
  return {
    src: srcIn,
    dst: dstIn,
    proxy: proxyIn,
    dir,
    file,
    fromSrc: (args: string[]) => runCli(args, { env: envFor(srcIn, srcIn.adminKey) }),
    /** Through the recording proxy in front of the second service. */
    toDst: (args: string[]) => runCli(args, { env: envFor(proxyIn, dstIn.adminKey) }),
    /** The writes (not GET) the second service was sent since `from`. */
    writesSince: (from: number) => proxyIn.seen.slice(from).filter((l) => !l.startsWith('GET ')),
  };
}

/** The API keys stored in `svc`, read from SQLite. */
export const keysOf = (svc: TestService) =>
  svc.db.prepare('SELECT id, name, owner_id AS ownerId, permissions, expire_date AS expireDate FROM api_keys ORDER BY id').all() as {
    id: number;
    name: string;
    ownerId: string;
    permissions: number;
    expireDate: number | null;
  }[];
