/**
 * `lic apply -f FILE` end to end: the configuration of a real service seeded with the demo
 * dataset (exported by `lic state export`) applied to a second service that has only the
 * users (users are not part of the API): everything created in order, new keys written to
 * --key-dir, then diffed (no difference); a second apply sends no write; a removed key with
 * --prune is one DELETE; a failure midway stops, says what was done, and a re-run finishes;
 * the example of docs/state.md applies. The operator's safety (the key lic runs with,
 * --key-dir over links, a lost reply) is apply.safety.test.ts; reading a state file, file.test.ts.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { envFor, runCli, tempDir } from '../../helpers/cli.js';
import { http } from '../../helpers/service.js';
import { type Failing, keysOf, useTwoServices } from './two-services.js';

let failing: Failing;
const { dst, proxy, dir, file, toDst, writesSince } = useTwoServices({ failing: () => failing });

describe('export, apply to a second service, diff', () => {
  it('apply creates everything in order, writes new keys to --key-dir (0600, the folder made 0700), and diff then finds nothing', async () => {
    const keyDir = join(tempDir('lic-keys-'), 'new', 'keys');
    const from = proxy.seen.length;
    const r = await toDst(['apply', '-f', file, '--key-dir', keyDir]);
    expect(r.code, r.stderr).toBe(0);
    const writes = writesSince(from);
    const order = writes.map((w) => w.split('?')[0]);
    // resources first, then assemblies (one names a resource), then keys
    const last = (p: string) => order.lastIndexOf(`POST ${p}`);
    const first = (p: string) => order.indexOf(`POST ${p}`);
    expect(last('/v1/resources')).toBeLessThan(first('/v1/assemblies'));
    expect(last('/v1/assemblies')).toBeLessThan(first('/v1/api-keys'));
    expect(writes.filter((w) => w.startsWith('POST /v1/api-keys'))).toHaveLength(4);
    // the new keys' secrets: in files, each one working, never on stdout
    expect(statSync(keyDir).mode & 0o777).toBe(0o700);
    const admin = join(keyDir, 'Administrator_demo_key.key');
    expect(statSync(admin).mode & 0o777).toBe(0o600);
    const secret = readFileSync(admin, 'utf8').trim();
    expect(r.stdout).not.toContain(secret);
    expect((await http(dst, 'GET', '/v1/api-keys?take=1', { key: secret })).status).toBe(200);
    const mapped = dst.db.prepare("SELECT mapping_file_id AS m FROM assemblies WHERE name = 'ShroudIL.Engine'").get() as { m: number };
    const res = dst.db.prepare("SELECT id FROM resources WHERE code = 'map-shroudil-engine-4.2.0'").get() as { id: number };
    expect(mapped.m).toBe(res.id);

    const d = await toDst(['diff', '-f', file, '--exit-code']);
    expect(d.code, d.stderr).toBe(0);
    expect(d.stdout).toBe('');
    // no drift in a pipe (cron): not a word; on a terminal it says so
    expect(d.stderr).toBe('');
    const tty = await runCli(['diff', '-f', file], { env: envFor(dst, dst.adminKey), stderrTTY: true });
    expect(tty.stderr).toContain('No changes');
  });

  it('a second apply sends no write, and its dry run prints nothing', async () => {
    const from = proxy.seen.length;
    const r = await toDst(['apply', '-f', file]);
    expect(r.code, r.stderr).toBe(0);
    // a --key-dir that does not exist is fine in a dry run, and stays unmade
    const unmade = join(tempDir('lic-keys-'), 'not-yet');
    const dry = await toDst(['apply', '-f', file, '--dry-run', '--key-dir', unmade]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(existsSync(unmade)).toBe(false);
    expect(dry.stdout).toBe('');
    expect(dry.stderr).toContain('No changes');
    expect(proxy.seen.length).toBeGreaterThan(from);
    expect(writesSince(from)).toEqual([]);
  });
});

describe('changes', () => {
  it('--prune deletes exactly the key the file lacks, asks first, and never the key lic runs with', async () => {
    const pruned = join(dir, 'pruned.yaml');
    const doc = parse(readFileSync(file, 'utf8'));
    doc.keys = doc.keys.filter((k: { name: string }) => k.name !== 'Sales demo key');
    writeFileSync(pruned, JSON.stringify(doc));
    const sales = keysOf(dst).find((k) => k.name === 'Sales demo key')!.id;

    const d = await toDst(['diff', '-f', pruned, '--prune', '-o', 'json']);
    expect(JSON.parse(d.stdout)).toMatchObject({ changes: 1, delete: 1, steps: [{ action: 'delete', noun: 'keys', id: sales }] });
    expect(d.stderr).toContain('not deleting API key "ops"');

    const from = proxy.seen.length;
    const refused = await toDst(['apply', '-f', pruned, '--prune']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--yes/);
    expect(writesSince(from)).toEqual([]);

    const r = await toDst(['apply', '-f', pruned, '--prune', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(writesSince(from)).toEqual([`DELETE /v1/api-keys/${sales}`]);
    expect(keysOf(dst).map((k) => k.name)).toContain('ops');
    expect((await toDst(['diff', '-f', pruned, '--prune', '--exit-code'])).code).toBe(0);
    // the key back, as the whole file says
    expect((await toDst(['apply', '-f', file])).code).toBe(0);
  });
});

describe('a failure midway', () => {
  it('stops, says what was done and what was not, and a re-run finishes', async () => {
    const more = join(dir, 'more.yaml');
    const doc = parse(readFileSync(file, 'utf8'));
    doc.keys.push({ name: 'ci-a', ownerId: 'admin', permissions: 1 }, { name: 'ci-b', ownerId: 'admin', permissions: 3 });
    writeFileSync(more, JSON.stringify(doc));
    failing = { nth: 2, method: 'POST', path: '/v1/api-keys' };
    const r = await toDst(['apply', '-f', more]);
    failing = undefined;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('apply stopped at create API key "ci-b"');
    expect(r.stderr).toMatch(/done \(1\): create API key "ci-a"/);
    expect(r.stderr).toMatch(/not done \(1\): create API key "ci-b"/);
    // the secret of the key that was made is still printed
    expect(r.stdout).toMatch(/ci-a\t\d+\tapi_[a-z0-9]{24}/);

    const again = await toDst(['apply', '-f', more, '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    const out = JSON.parse(again.stdout);
    expect(out).toMatchObject({ changes: 1, create: 1, steps: [{ item: 'ci-b' }] });
    expect(out.newKeys).toEqual([{ name: 'ci-b', id: expect.any(Number), key: expect.stringMatching(/^api_/) }]);
    expect((await toDst(['diff', '-f', more, '--exit-code'])).code).toBe(0);
  });
});

describe('the example of docs/state.md', () => {
  it('is a valid state file that applies and then matches', async () => {
    const doc = readFileSync(new URL('../../../docs/state.md', import.meta.url), 'utf8');
    const example = /```yaml\n([\s\S]*?)```/.exec(doc)![1]!;
    const p = join(dir, 'example.yaml');
    writeFileSync(p, example);
    const d = await toDst(['diff', '-f', p, '-o', 'json']);
    expect(d.code, d.stderr).toBe(0);
    expect(JSON.parse(d.stdout)).toMatchObject({ create: 3, update: 0, delete: 0 });
    const r = await toDst(['apply', '-f', p, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).newKeys).toHaveLength(1);
    expect((await toDst(['diff', '-f', p, '--exit-code'])).code).toBe(0);
  });
});
