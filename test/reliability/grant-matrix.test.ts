/**
 * The grant rule: every way a write can give an API key rights — set `permissions`, create a
 * key, move it to an Administrator (`ownerId`), revive it, extend or remove its expiry —
 * plus the writes that only take away (revoke, shorten, rename), × Administrator callers
 * with every permission mask 0..7, with and without an expiry, × target keys with every
 * mask. The expected status comes from the rule as contract §3 states it, never from the
 * service's code; and after every acknowledged write the database is checked: a key that
 * gained anything holds no bit and no time its caller lacks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserWithKey, http, startTestService, type TestService } from '../helpers/service.js';
import { histogram, recordFigures } from './figures.js';

const NOW = Date.parse('2030-01-01T12:00:00.000Z');
const MIN = 60_000;
/** callers that expire, expire at NOW + 60 min */
const CALLER_EXPIRY = NOW + 60 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ now: () => new Date(NOW) });
  svc.db.prepare("INSERT INTO users (id, name, role, created_at) VALUES ('lm', 'lm', 'LicenseManager', 0)").run();
});
afterAll(() => svc.close());

interface KeyState {
  ownerId: string;
  permissions: number;
  expireDate: number | null;
  revoked: number;
}

/** A target key (owner, bits, expiry, revoked) made straight in the database; returns its id. */
function target(o: Partial<KeyState> & { permissions: number }): number {
  const r = svc.db
    .prepare(
      "INSERT INTO api_keys (name, owner_id, permissions, created_at, expire_date, revoked, key_prefix, key_hash) VALUES ('target', ?, ?, 0, ?, ?, 'api_xxxx', lower(hex(randomblob(32))))",
    )
    .run(o.ownerId ?? 'admin', o.permissions, o.expireDate ?? null, o.revoked ?? 0);
  return Number(r.lastInsertRowid);
}
const state = (id: number) =>
  svc.db.prepare('SELECT owner_id AS ownerId, permissions, expire_date AS expireDate, revoked FROM api_keys WHERE id = ?').get(id) as
    KeyState | undefined;

/**
 * One write of the matrix for target mask `t`: how to set up the target (none for an
 * insert), the body, whether it gives (a grant) or only takes away, and the target's
 * expiry after it (ms, null = none).
 */
interface Write {
  name: string;
  setup?: (t: number) => number;
  body: (id: number, t: number) => Record<string, unknown>;
  gives: boolean;
  /** the target mask at which this write gives nothing after all (fewer bits) */
  takesAwayAt?: number;
  expiryAfter: number | null;
}
const WRITES: Write[] = [
  ...[null, NOW + 30 * MIN].map((e) => ({
    name: `permissions on a key ${e ? 'expiring within' : 'without expiry'}`,
    setup: (t: number) => target({ permissions: t === 7 ? 0 : 7 - t, expireDate: e }),
    body: (id: number, t: number) => ({ id, permissions: t }),
    gives: true,
    // permissions 0 on the key of 7 only takes bits away: it needs nothing but the Write bit (contract §3)
    takesAwayAt: 0,
    expiryAfter: e,
  })),
  ...[null, NOW + 30 * MIN].map((e) => ({
    name: `ownerId → admin of a LicenseManager key ${e ? 'expiring within' : 'without expiry'}`,
    setup: (t: number) => target({ ownerId: 'lm', permissions: t, expireDate: e }),
    body: (id: number) => ({ id, ownerId: 'admin' }),
    gives: true,
    expiryAfter: e,
  })),
  ...[null, NOW + 30 * MIN].map((e) => ({
    name: `revoked false on a revoked key ${e ? 'expiring within' : 'without expiry'}`,
    setup: (t: number) => target({ permissions: t, expireDate: e, revoked: 1 }),
    body: (id: number) => ({ id, revoked: false }),
    gives: true,
    expiryAfter: e,
  })),
  ...[null, NOW + 45 * MIN, NOW + 120 * MIN].map((x) => ({
    name: `expireDate ${x ? `+${(x - NOW) / MIN} min` : 'null'} on an expired key`,
    setup: (t: number) => target({ permissions: t, expireDate: NOW - 60 * MIN }),
    body: (id: number) => ({ id, expireDate: x === null ? null : iso(x) }),
    gives: true,
    expiryAfter: x,
  })),
  ...[null, NOW + 45 * MIN, NOW + 120 * MIN].map((x) => ({
    name: `insert, expireDate ${x ? `+${(x - NOW) / MIN} min` : 'absent'}`,
    body: (_id: number, t: number) => ({ name: 'new', permissions: t, ...(x ? { expireDate: iso(x) } : {}) }),
    gives: true,
    expiryAfter: x,
  })),
  // taking away: the Write bit is all it needs
  {
    name: 'revoked true',
    setup: (t) => target({ permissions: t }),
    body: (id) => ({ id, revoked: true }),
    gives: false,
    expiryAfter: null,
  },
  {
    name: 'an earlier expireDate',
    setup: (t) => target({ permissions: t, expireDate: NOW + 300 * MIN }),
    body: (id) => ({ id, expireDate: iso(NOW + 10 * MIN) }),
    gives: false,
    expiryAfter: NOW + 10 * MIN,
  },
  { name: 'name', setup: (t) => target({ permissions: t }), body: (id) => ({ id, name: 'renamed' }), gives: false, expiryAfter: null },
];

/** The status contract §3 gives a write by a caller with mask `c` (expiring at `cExp`, or never) on target mask `t`. */
function expected(w: Write, c: number, cExp: number | null, t: number): number {
  if ((c & 2) === 0) return 403; // POST and PUT need the Write bit
  if (!w.gives || w.takesAwayAt === t) return 200;
  if ((t & ~c) !== 0) return 403; // a bit the caller lacks
  if (cExp !== null && (w.expiryAfter === null || w.expiryAfter > cExp)) return 403; // longer than the caller lives
  return 200;
}

/** Whether `after` gained anything over `before` (undefined: it did not exist): a new bit, a new owner, revival, a longer life. */
function gained(before: KeyState | undefined, after: KeyState): boolean {
  if (!before) return true;
  const longer = before.expireDate !== null && (after.expireDate === null || after.expireDate > before.expireDate);
  return (
    (after.permissions & ~before.permissions) !== 0 ||
    after.ownerId !== before.ownerId ||
    (before.revoked === 1 && after.revoked === 0) ||
    longer
  );
}

describe('grant matrix', () => {
  it('every way to give a key rights × caller masks and expiry × target masks: the status the rule says, and no key ends with more than its caller', async () => {
    const callers: { mask: number; expiry: number | null; key: string }[] = [];
    for (const expiry of [null, CALLER_EXPIRY]) {
      for (let mask = 0; mask < 8; mask++) {
        const key = await addUserWithKey(svc, 'admin', 'Administrator', mask);
        svc.db.prepare('UPDATE api_keys SET expire_date = ? WHERE key_prefix = ?').run(expiry, key.slice(0, 8));
        callers.push({ mask, expiry, key });
      }
    }
    const statuses: number[] = [];
    const wrong: string[] = [];
    const escalations: string[] = [];
    const t0 = performance.now();
    for (const w of WRITES) {
      for (const c of callers) {
        for (let t = 0; t < 8; t++) {
          const id = w.setup?.(t) ?? 0;
          const before = w.setup ? state(id) : undefined;
          const r = await http(svc, w.setup ? 'PUT' : 'POST', '/v1/api-keys', { key: c.key, body: { apiKey: w.body(id, t) } });
          statuses.push(r.status);
          const want = expected(w, c.mask, c.expiry, t);
          const label = `${w.name}, caller ${c.mask}${c.expiry ? ' (expiring)' : ''}, target ${t}`;
          if (r.status !== want) wrong.push(`${label}: ${r.status} ${r.body.message ?? ''}, expected ${want}`);
          if (r.status >= 400) expect(r.body).toMatchObject({ success: false, code: 7 });
          if (r.status !== 200) {
            // refused: nothing changed
            if (w.setup && JSON.stringify(state(id)) !== JSON.stringify(before)) escalations.push(`${label}: changed though refused`);
            continue;
          }
          const after = state(w.setup ? id : (r.body.apiKeyId as number))!;
          if (!gained(before, after)) continue;
          const tooManyBits = (after.permissions & ~c.mask) !== 0;
          const tooLong = c.expiry !== null && (after.expireDate === null || after.expireDate > c.expiry);
          if (tooManyBits || tooLong) escalations.push(`${label}: left with ${JSON.stringify(after)}`);
        }
      }
    }
    const ms = performance.now() - t0;
    expect(wrong).toEqual([]);
    expect(escalations).toEqual([]);
    expect(statuses).toHaveLength(WRITES.length * callers.length * 8);
    recordFigures('grant-matrix', 'Grant rule: every way to give a key rights × caller masks and expiry × target masks', {
      'kinds of write': `${WRITES.filter((w) => w.gives).length} that give, ${WRITES.filter((w) => !w.gives).length} that take away`,
      callers: `${callers.length} (Administrator, masks 0..7, with and without expiry)`,
      cases: statuses.length,
      'as contract §3 says': statuses.length - wrong.length,
      'keys left with a bit or a time their caller lacks': escalations.length,
      ...Object.fromEntries(Object.entries(histogram(statuses)).map(([s, n]) => [`HTTP ${s}`, n])),
      'duration (s)': (ms / 1000).toFixed(1),
    });
  });
});
