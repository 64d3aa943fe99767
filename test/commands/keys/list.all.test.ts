/** `lic keys list` with the list machinery: --owner, --revoked, --active, --all, --fields, formats. */
import { parse as parseCsv } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_LIST } from '../../../src/commands/keys/list.js';
import { runCli } from '../../helpers/cli.js';
import { addUserWithKey } from '../../helpers/service.js';
import { useService, ndjson } from '../../helpers/fixtures.js';

const secrets: string[] = [];
const BULK = 1200;

interface KeyRow {
  id: number;
  owner_id: string;
  revoked: number;
  expire_date: number | null;
}
const dbKeys = (): KeyRow[] => svc.db.prepare('SELECT id, owner_id, revoked, expire_date FROM api_keys ORDER BY id').all() as KeyRow[];
const requests = (stderr: string): URL[] => [...stderr.matchAll(/^> GET (\S+)/gm)].map((m) => new URL(m[1]!));

const { svc, env } = useService();
beforeAll(async () => {
  secrets.push(svc.adminKey);
  for (const [user, perm] of [
    ['u1', 1],
    ['u1', 3],
    ['u1', 7],
    ['u2', 1],
    ['u2', 5],
  ] as const) {
    secrets.push(await addUserWithKey(svc, user, 'Sales', perm));
  }
  const ids = dbKeys().map((k) => k.id);
  // one of u1's revoked, one of u1's expired, one of u2's expiring in the future
  svc.db.prepare('UPDATE api_keys SET revoked = 1 WHERE id = ?').run(ids[1]);
  svc.db.prepare('UPDATE api_keys SET expire_date = ? WHERE id = ?').run(Date.now() - 86_400_000, ids[2]);
  svc.db.prepare('UPDATE api_keys SET expire_date = ? WHERE id = ?').run(Date.now() + 86_400_000, ids[4]);
  // many more straight into the database, for paging; every fifth revoked
  const ins = svc.db.prepare(
    'INSERT INTO api_keys (name, owner_id, permissions, created_at, key_prefix, key_hash, revoked) VALUES (?, ?, 1, ?, ?, ?, ?)',
  );
  svc.db.transaction(() => {
    for (let i = 0; i < BULK; i++) ins.run(`bulk, "${i}"`, 'u2', Date.now(), 'api_bulk', `hash-${i}`, i % 5 === 0 ? 1 : 0);
  })();
});

describe('keys list friendly flags', () => {
  it('--owner: only that user\'s keys, filter OwnerId = "…"', async () => {
    const r = await runCli(['keys', 'list', '--owner', 'u1', '-o', 'ndjson', '--verbose'], { env });
    expect(r.code).toBe(0);
    expect(requests(r.stderr)[0]!.searchParams.get('filter')).toBe('OwnerId = "u1"');
    expect(ndjson(r.stdout).map((k) => k.id)).toEqual(
      dbKeys()
        .filter((k) => k.owner_id === 'u1')
        .map((k) => k.id),
    );
  });

  it('--revoked with --owner: AND-ed', async () => {
    const r = await runCli(['keys', 'list', '--owner', 'u1', '--revoked', '-o', 'ndjson', '--verbose'], { env });
    expect(r.code).toBe(0);
    expect(requests(r.stderr)[0]!.searchParams.get('filter')).toBe('(OwnerId = "u1") and (Revoked = true)');
    const want = dbKeys().filter((k) => k.owner_id === 'u1' && k.revoked === 1);
    expect(want).toHaveLength(1);
    expect(ndjson(r.stdout).map((k) => k.id)).toEqual(want.map((k) => k.id));
  });

  it('--active: neither revoked nor expired (a future expiry is fine)', async () => {
    const r = await runCli(['keys', 'list', '--active', '--all', '-o', 'ndjson'], { env });
    expect(r.code).toBe(0);
    const now = Date.now();
    const want = dbKeys().filter((k) => k.revoked === 0 && (k.expire_date === null || k.expire_date > now));
    expect(ndjson(r.stdout).map((k) => k.id)).toEqual(want.map((k) => k.id));
    expect(want.some((k) => k.expire_date !== null)).toBe(true);
  });

  it("the --active clause is built at the context's clock", () => {
    expect(API_KEY_LIST.filters({ active: true }, new Date('2030-01-02T03:04:05Z'))).toContain(
      '(Revoked = false) and (ExpireDate = null or ExpireDate > "2030-01-02T03:04:05.000Z")',
    );
  });

  it('--revoked with --active is a usage error (exit 2)', async () => {
    const r = await runCli(['keys', 'list', '--revoked', '--active'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--revoked.*cannot be used with.*--active/);
  });
});

describe('keys list --all', () => {
  it('every key exactly once in id order, paged by id ascending; secrets never printed', async () => {
    const r = await runCli(['keys', 'list', '--all', '-o', 'ndjson', '--verbose'], { env });
    expect(r.code).toBe(0);
    const recs = ndjson(r.stdout);
    expect(recs.map((k) => k.id)).toEqual(dbKeys().map((k) => k.id));
    const reqs = requests(r.stderr);
    expect(reqs).toHaveLength(2);
    expect(reqs[1]!.searchParams.get('filter')).toBe(`id > ${recs[999]!.id}`);
    for (const s of secrets) expect(r.stdout + r.stderr).not.toContain(s);
  });

  it('csv with --fields: exactly those columns, booleans as true/false, quoted names round-trip', async () => {
    const r = await runCli(['keys', 'list', '--all', '--fields', 'id,name,revoked', '-o', 'csv'], { env });
    expect(r.code).toBe(0);
    const rows = parseCsv(r.stdout) as string[][];
    expect(rows[0]).toEqual(['id', 'name', 'revoked']);
    const db = svc.db.prepare('SELECT id, name, revoked FROM api_keys ORDER BY id').all() as {
      id: number;
      name: string;
      revoked: number;
    }[];
    expect(rows.slice(1)).toEqual(db.map((k) => [String(k.id), k.name, k.revoked ? 'true' : 'false']));
    expect(rows.some((row) => row[1] === 'bulk, "7"')).toBe(true);
  });

  it('--sort createdAt:desc with --limit: skip paging, the limit honoured', async () => {
    const r = await runCli(['keys', 'list', '--sort', 'createdAt:desc', '--limit', '1100', '-o', 'ndjson', '--verbose'], { env });
    expect(r.code).toBe(0);
    const recs = ndjson(r.stdout);
    expect(recs).toHaveLength(1100);
    expect(new Set(recs.map((k) => k.id)).size).toBe(1100);
    expect(requests(r.stderr).map((u) => [u.searchParams.get('take'), u.searchParams.get('skip')])).toEqual([
      ['1000', null],
      ['100', '1000'],
    ]);
  });

  it('json --all: one object, apiKeys and totalApiKeysCount', async () => {
    const r = await runCli(['keys', 'list', '--all', '--revoked', '-o', 'json'], { env });
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    const want = dbKeys().filter((k) => k.revoked === 1);
    expect(body.totalApiKeysCount).toBe(want.length);
    expect(body.apiKeys.map((k: { id: number }) => k.id)).toEqual(want.map((k) => k.id));
  });

  it('the old flags work as before: --take/--skip, one page', async () => {
    const r = await runCli(['keys', 'list', '--take', '2', '--skip', '1', '-o', 'json'], { env });
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.apiKeys.map((k: { id: number }) => k.id)).toEqual(
      dbKeys()
        .slice(1, 3)
        .map((k) => k.id),
    );
    expect(body.totalApiKeysCount).toBe(dbKeys().length);
  });
});
