/**
 * `lic keys list` in-process against the real service: piped, json and terminal output
 * (the prefix, never the key), paging, the friendly flags (--owner, --revoked, --active)
 * over many keys. `--all` is in list.all.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { API_KEY_LIST } from '../../../src/commands/keys/list.js';
import { runCli } from '../../helpers/cli.js';
import { http } from '../../helpers/service.js';
import { ndjson } from '../../helpers/fixtures.js';
import { requests, useKeysCli, useManyKeys } from './_shared.js';

const { svc, secrets, lic, create, listed } = useKeysCli({ checkAfterAll: true });
/** a second service with many keys of two users, for the friendly flags */
const { env, dbKeys } = useManyKeys();

describe('keys list', () => {
  it('piped: tab-separated, no header, the prefix but never the key', async () => {
    const { id, key } = await create(['--perm', '5', '--name', 'listed', '--description', 'two\twords']);
    const r = await lic(['keys', 'list', '--take', '1000']);
    expect(r.code).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.startsWith(`${id}\t`))!;
    const k = await listed(id);
    expect(line).toBe(`${id}\tlisted\tadmin\t5 r-d\t${key.slice(0, 8)}\t${k.createdAt}\t\tactive\ttwo words`);
    expect(r.stdout.split('\n')[0]).toMatch(/^1\tbootstrap\tadmin\t7 rwd\t/);
    expect(r.stdout).not.toContain('ID\tNAME');
    for (const s of secrets) expect(r.stdout).not.toContain(s);
  });

  it('-o json: the body unchanged (compared with a raw call); never the key', async () => {
    const r = await lic(['keys', 'list', '-o', 'json']);
    const raw = await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey });
    expect(JSON.parse(r.stdout)).toEqual(raw.body);
    expect(r.stdout).toBe(`${JSON.stringify(raw.body)}\n`);
    for (const s of secrets) expect(r.stdout).not.toContain(s);
  });

  it('on a TTY: a table with a header, never the key', async () => {
    const r = await lic(['keys', 'list'], { tty: true, env: { NO_COLOR: '1' } });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^\s*ID\s+NAME\s+OWNER\s+PERM\s+PREFIX/);
    expect(r.stdout).toContain('bootstrap');
    for (const s of secrets) expect(r.stdout).not.toContain(s);
  });

  it('--take and --skip page in id order', async () => {
    const all = (await http(svc, 'GET', '/v1/api-keys?take=1000', { key: svc.adminKey })).body.apiKeys.map((k: { id: number }) =>
      String(k.id),
    );
    const r = await lic(['keys', 'list', '--take', '2', '--skip', '1']);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[0]),
    ).toEqual(all.slice(1, 3));
  });
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
