import { startService, type AuthFailLimit, type RunningService } from '../../src/server/index.js';
import { secretBox } from '../../src/server/secrets.js';

export interface TestService extends RunningService {
  /** the Administrator key made on first start (permissions 7) */
  adminKey: string;
}

/** The key test services seal resource passwords with (LIC_SECRET_KEY), so a test can check what was stored. */
const TEST_SECRET_KEY = Buffer.alloc(32, 0x5a).toString('base64');

/** A stored resource password (sealed, `enc:v1:…`) opened with TEST_SECRET_KEY; "" stays "". */
export function openStoredSecret(stored: string): string {
  return secretBox(Buffer.from(TEST_SECRET_KEY, 'base64')).open(stored);
}

/** Starts the real reference service on 127.0.0.1:0 over an in-memory database (failed-authentication guard off unless `authFailLimit` is given). */
export async function startTestService(
  opts: { seed?: string; now?: () => Date; authFailLimit?: AuthFailLimit; logReadBudgetMs?: number } = {},
): Promise<TestService> {
  // The failed-authentication guard is off unless a test asks for it: a test file shares
  // one service and makes deliberate 401s from one address, which the guard (tested in
  // test/server/auth-guard.test.ts, and on in every spawned `lic serve`) would block.
  const authFailLimit = opts.authFailLimit ?? { limit: 0, windowMs: 60_000 };
  const svc = await startService({
    dbPath: ':memory:',
    port: 0,
    seed: opts.seed,
    now: opts.now,
    authFailLimit,
    secretKey: TEST_SECRET_KEY,
    logReadBudgetMs: opts.logReadBudgetMs,
  });
  const admin = svc.issuedKeys.find((k) => k.role === 'Administrator');
  if (!admin) throw new Error('no Administrator key issued');
  return Object.assign(svc, { adminKey: admin.key });
}

/** Adds a user with `role` and a key with `permissions` straight into the database; returns the key. */
export async function addUserWithKey(
  svc: RunningService,
  userId: string,
  role: string,
  permissions: number,
  customerCode?: string,
): Promise<string> {
  const { generateApiKey, hashApiKey } = await import('../../src/server/auth.js');
  const key = generateApiKey();
  svc.db
    .prepare('INSERT OR IGNORE INTO users (id, name, role, customer_code, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(userId, userId, role, customerCode ?? null, Date.now());
  svc.db
    .prepare('INSERT INTO api_keys (name, owner_id, permissions, created_at, key_prefix, key_hash) VALUES (?, ?, ?, ?, ?, ?)')
    .run(`${userId}-${permissions}`, userId, permissions, Date.now(), key.slice(0, 8), hashApiKey(key));
  return key;
}

/** One raw HTTP call with undici, for contract-level assertions. */
export async function http(
  svc: { url: string },
  method: string,
  path: string,
  o: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const { request } = await import('undici');
  const headers: Record<string, string> = { ...o.headers };
  if (o.key) headers['x-api-key'] = o.key;
  let body: string | undefined;
  if (o.body !== undefined || o.rawBody !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = o.rawBody ?? JSON.stringify(o.body);
  }
  const res = await request(svc.url + path, { method: method as 'GET', headers, body });
  const text = await res.body.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.statusCode, body: parsed, headers: res.headers };
}
