/**
 * The failed-authentication guard: more than N failures per window from one
 * address → 429 + Retry-After for everything from that address, growing on repeat
 * offences; other addresses untouched; failures logged one Warning per address and window.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/server/index.js';
import { parseAuthFailLimit } from '../../src/server/auth-guard.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { holdWriteLock } from '../helpers/lock-holder.js';

const T0 = Date.parse('2025-01-18T10:00:00Z');
const BAD = 'api_000000000000000000000000';

let svc: RunningService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

async function start(o: { limit?: string } = {}) {
  const clock = { t: T0 };
  svc = await startService({
    dbPath: ':memory:',
    port: 0,
    now: () => new Date(clock.t),
    authFailLimit: o.limit === undefined ? undefined : parseAuthFailLimit(o.limit),
  });
  const admin = svc.issuedKeys[0]!.key;
  return { svc, clock, admin };
}

/** One GET /v1/api-keys from `from` (a loopback address of this machine). */
async function get(s: RunningService, key: string | undefined, from = '127.0.0.1') {
  const dispatcher = new Agent({ localAddress: from });
  try {
    const res = await request(`${s.url}/v1/api-keys`, { headers: key ? { 'x-api-key': key } : {}, dispatcher });
    return { status: res.statusCode, retryAfter: res.headers['retry-after'], body: (await res.body.json()) as Record<string, unknown> };
  } finally {
    await dispatcher.close();
  }
}

const warnings = (s: RunningService) =>
  s.db.prepare("SELECT message, properties FROM log WHERE level = 'Warning' ORDER BY id").all() as {
    message: string;
    properties: string;
  }[];

describe('failed-authentication guard', () => {
  it('five failures are 401s; the sixth blocks the address (429, code 8, Retry-After) even for a good key, until the cool-down ends', async () => {
    const { svc: s, clock, admin } = await start();
    for (let i = 0; i < 5; i++) expect((await get(s, BAD)).status).toBe(401);
    const sixth = await get(s, BAD);
    expect(sixth.status).toBe(429);
    expect(sixth.retryAfter).toBe('60');
    expect(sixth.body).toMatchObject({
      success: false,
      code: 8,
      message: 'too many failed authentications from this address; retry after 60 s',
    });
    // a good key from the blocked address is refused too
    const good = await get(s, admin);
    expect(good.status).toBe(429);
    clock.t += 30_000;
    expect((await get(s, admin)).retryAfter).toBe('30');
    clock.t += 30_001;
    expect((await get(s, admin)).status).toBe(200);
  });

  it('repeat offences double the cool-down', async () => {
    const { svc: s, clock } = await start();
    for (let i = 0; i < 6; i++) await get(s, BAD);
    clock.t += 61_000;
    for (let i = 0; i < 5; i++) expect((await get(s, BAD)).status).toBe(401);
    const again = await get(s, BAD);
    expect(again.status).toBe(429);
    expect(again.retryAfter).toBe('120');
  });

  it('failures spread beyond the window do not block', async () => {
    const { svc: s, clock } = await start();
    for (let i = 0; i < 12; i++) {
      expect((await get(s, BAD)).status).toBe(401);
      clock.t += 15_000; // 4 per minute
    }
  });

  it('another address is untouched while one is blocked', async () => {
    const { svc: s, admin } = await start();
    for (let i = 0; i < 6; i++) await get(s, BAD, '127.0.0.1');
    expect((await get(s, admin, '127.0.0.1')).status).toBe(429);
    expect((await get(s, admin, '127.0.0.2')).status).toBe(200);
    expect((await get(s, BAD, '127.0.0.2')).status).toBe(401);
  });

  it('logs one Warning per address and window with the count, and one when a block starts; never the key', async () => {
    const { svc: s } = await start();
    for (let i = 0; i < 4; i++) await get(s, BAD);
    let w = warnings(s);
    expect(w).toHaveLength(1);
    expect(w[0]!.message).toBe('4 failed authentications from 127.0.0.1 within 60 s; the last for GET /v1/api-keys: unknown API key');
    expect(JSON.parse(w[0]!.properties)).toMatchObject({ Count: 4, RemoteAddress: '127.0.0.1' });
    await get(s, BAD);
    await get(s, BAD); // the sixth: blocked
    await get(s, BAD); // refused while blocked: not a failed authentication, not logged
    w = warnings(s);
    expect(w.map((e) => e.message)).toEqual([
      '6 failed authentications from 127.0.0.1 within 60 s; the last for GET /v1/api-keys: unknown API key',
      'Blocked 127.0.0.1 for 60 s after 6 failed authentications within 60 s (offence 1)',
    ]);
    expect(JSON.stringify(w)).not.toContain(BAD);
  });

  it('failures while another process holds the write lock are all counted once it is released', async () => {
    const dbPath = join(tempDir('lic-guard-lock-'), 'lic.db');
    svc = await startService({
      dbPath,
      port: 0,
      authFailLimit: parseAuthFailLimit('0'),
      secretKey: Buffer.alloc(32, 6).toString('base64'),
    });
    const s = svc;
    // two before the lock (the entry written), twelve during it (none can be written), none after
    for (let i = 0; i < 2; i++) expect((await get(s, BAD)).status).toBe(401);
    const lock = await holdWriteLock(dbPath);
    for (let i = 0; i < 12; i++) expect((await get(s, BAD)).status).toBe(401);
    await lock.release();
    // the count is written by the retry (each second) with no further failure to bring it
    let counts: number[] = [];
    for (let i = 0; i < 50; i++) {
      counts = warnings(s)
        .filter((w) => /failed authentications|Authentication failed/.test(w.message))
        .map((w) => (JSON.parse(w.properties) as { Count?: number }).Count ?? 1);
      if (counts.reduce((a, b) => a + b, 0) === 14) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(counts).toEqual([14]);
    // and a window whose first entry met the lock: counted whole too
    svc.db.prepare("DELETE FROM log WHERE level = 'Warning'").run();
    const other = await holdWriteLock(dbPath);
    for (let i = 0; i < 3; i++) expect((await get(s, BAD, '127.0.0.2')).status).toBe(401);
    await other.release();
    let second: string[] = [];
    for (let i = 0; i < 50 && second.length === 0; i++) {
      second = warnings(s)
        .filter((w) => w.message.includes('127.0.0.2'))
        .map((w) => w.message);
      if (second.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(second).toEqual(['3 failed authentications from 127.0.0.2 within 60 s; the last for GET /v1/api-keys: unknown API key']);
  });

  it('--auth-fail-limit 0: nothing is blocked, and failures are still logged one entry per window', async () => {
    const { svc: s, admin } = await start({ limit: '0' });
    for (let i = 0; i < 20; i++) expect((await get(s, BAD)).status).toBe(401);
    expect((await get(s, admin)).status).toBe(200);
    expect(warnings(s).map((e) => e.message)).toEqual([
      '20 failed authentications from 127.0.0.1 within 60 s; the last for GET /v1/api-keys: unknown API key',
    ]);
  });

  it('a custom limit: 2/10s blocks at the third failure', async () => {
    const { svc: s } = await start({ limit: '2/10s' });
    expect((await get(s, BAD)).status).toBe(401);
    expect((await get(s, BAD)).status).toBe(401);
    expect((await get(s, BAD)).status).toBe(429);
  });

  it('parses N/DURATION and refuses other forms', () => {
    expect(parseAuthFailLimit('5/60s')).toEqual({ limit: 5, windowMs: 60_000 });
    expect(parseAuthFailLimit('20/10m')).toEqual({ limit: 20, windowMs: 600_000 });
    expect(parseAuthFailLimit('0')?.limit).toBe(0);
    for (const bad of ['', '5', '5/', '/60s', '-1/60s', '5/0s', '5/2d', 'five/60s', '5/60x'])
      expect(parseAuthFailLimit(bad)).toBeUndefined();
  });

  it('lic serve --auth-fail-limit with a bad value is a usage error naming the flag', async () => {
    const r = await runCli(['serve', '--port', '0', '--db', ':memory:', '--auth-fail-limit', 'lots']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--auth-fail-limit: expected N/DURATION');
  });
});

describe('keys found by prefix, compared in constant time', () => {
  it('two keys sharing a prefix each authenticate as themselves', async () => {
    const { svc: s } = await start();
    const { hashApiKey } = await import('../../src/server/auth.js');
    const a = 'api_samep0000000000000000001';
    const b = 'api_samep0000000000000000002';
    s.db.prepare("INSERT INTO users (id, name, role, created_at) VALUES ('u1', 'u1', 'Sales', 0)").run();
    const ins = s.db.prepare(
      'INSERT INTO api_keys (name, owner_id, permissions, created_at, key_prefix, key_hash) VALUES (?, ?, ?, 0, ?, ?)',
    );
    ins.run('a', 'admin', 7, a.slice(0, 8), hashApiKey(a));
    ins.run('b', 'u1', 7, b.slice(0, 8), hashApiKey(b));
    expect((await get(s, a)).status).toBe(200); // Administrator
    expect((await get(s, b)).status).toBe(403); // Sales may not list keys
    expect((await get(s, 'api_samep0000000000000000003')).status).toBe(401);
  });
});

describe('database files are owner-only', () => {
  it('a new database and its -wal/-shm are 0600; an existing 0644 file is narrowed', async () => {
    const dir = tempDir();
    const db = join(dir, 'lic.db');
    svc = await startService({ dbPath: db, port: 0 });
    for (const f of [db, `${db}-wal`, `${db}-shm`]) expect((statSync(f).mode & 0o777).toString(8), f).toBe('600');
    await svc.close();
    svc = undefined;
    const old = join(dir, 'old.db');
    writeFileSync(old, '', { mode: 0o644 });
    svc = await startService({ dbPath: old, port: 0 });
    expect((statSync(old).mode & 0o777).toString(8)).toBe('600');
  });
});
