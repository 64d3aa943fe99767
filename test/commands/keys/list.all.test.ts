/** `lic keys list --all` with the list machinery: paging by id or skip, --fields, formats, over more keys than a page. */
import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { ndjson } from '../../helpers/fixtures.js';
import { requests, useManyKeys } from './_shared.js';

const { svc, env, secrets, dbKeys } = useManyKeys();

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
