/**
 * `lic state export`, `lic diff` and `lic apply` end to end: the configuration of a real
 * service seeded with the demo dataset exported, applied to a second service that has
 * only the users (users are not part of the API), then diffed (no difference); a changed
 * permission is one update and one PUT; a removed key with --prune is one DELETE; a second
 * apply sends no write; a bad file is exit 2 naming line and field with nothing sent; a
 * failure midway stops, says what was done, and a re-run finishes; the default-stripping
 * style of service reads the same.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { envFor, runCli, tempDir } from '../../helpers/cli.js';
import { startRecordingProxy, type RecordingProxy } from '../../helpers/recording-proxy.js';
import { http, startTestService, type TestService } from '../../helpers/service.js';
import { startTransformProxy, type TransformProxy } from '../../helpers/transform-proxy.js';

let src: TestService;
let dst: TestService;
let proxy: RecordingProxy;
let failing: { nth: number; method: string; path: string } | undefined;
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
      if (!failing || !req.startsWith(`${failing.method} ${failing.path}`) || ++count !== failing.nth) return undefined;
      return { status: 500, body: { success: false, code: 13, message: 'injected failure' } };
    },
  });
});
afterAll(async () => {
  await proxy.close();
  await Promise.all([src.close(), dst.close()]);
});

const fromSrc = (args: string[]) => runCli(args, { env: envFor(src, src.adminKey) });
/** Through the recording proxy in front of the second service. */
const toDst = (args: string[]) => runCli(args, { env: envFor(proxy, dst.adminKey) });
/** The writes (not GET) the second service was sent since `from`. */
const writesSince = (from: number) => proxy.seen.slice(from).filter((l) => !l.startsWith('GET '));
const keysOf = (svc: TestService) =>
  svc.db.prepare('SELECT id, name, owner_id AS ownerId, permissions, expire_date AS expireDate FROM api_keys ORDER BY id').all() as {
    id: number;
    name: string;
    ownerId: string;
    permissions: number;
    expireDate: number | null;
  }[];

describe('export, apply to a second service, diff', () => {
  it('exports every record by its identity and never a secret', async () => {
    const r = await fromSrc(['state', 'export', '--data-dir', join(dir, 'data')]);
    expect(r.code, r.stderr).toBe(0);
    writeFileSync(file, r.stdout);
    const doc = parse(r.stdout);
    expect(doc.version).toBe(1);
    expect(doc.keys.map((k: { name: string }) => k.name)).toEqual(
      keysOf(src)
        .map((k) => k.name)
        .sort(),
    );
    expect(doc.resources).toHaveLength(4);
    const mapping = doc.assemblies.find((a: { name: string }) => a.name === 'ShroudIL.Engine');
    expect(mapping.mappingFile).toBe('map-shroudil-engine-4.2.0');
    for (const res of doc.resources) {
      expect(res.dataFile).toMatch(/data\//);
      expect(statSync(res.dataFile).mode & 0o777).toBe(0o600);
    }
    expect(r.stdout).not.toMatch(/password|keyPrefix|api_[a-z0-9]{24}/);
    for (const k of src.issuedKeys) expect(r.stdout).not.toContain(k.key);
  });

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

  it('reads the same from a service in the default-stripping style', async () => {
    const strip: TransformProxy = await startTransformProxy(dst.url, 'strip-defaults');
    try {
      const r = await runCli(['diff', '-f', file, '--exit-code', '--prune'], { env: envFor(strip, dst.adminKey) });
      expect(r.code, r.stderr).toBe(0);
      expect(strip.requests).toBeGreaterThan(0);
    } finally {
      await strip.close();
    }
  });
});

describe('changes', () => {
  it('a changed permission is one update in the plan and one PUT', async () => {
    const changed = join(dir, 'changed.yaml');
    const doc = parse(readFileSync(file, 'utf8'));
    doc.keys.find((k: { name: string }) => k.name === 'Sales demo key').permissions = 1;
    writeFileSync(changed, JSON.stringify(doc));
    const d = await toDst(['diff', '-f', changed, '-o', 'json', '--exit-code']);
    expect(d.code).toBe(1);
    const plan = JSON.parse(d.stdout);
    expect(plan).toMatchObject({ changes: 1, create: 0, update: 1, delete: 0 });
    expect(plan.steps[0]).toMatchObject({
      action: 'update',
      noun: 'keys',
      item: 'Sales demo key',
      changes: [{ field: 'permissions', from: 7, to: 1 }],
    });
    const text = await toDst(['diff', '-f', changed]);
    expect(text.stdout).toContain('~ update API key "Sales demo key"');
    expect(text.stdout).toContain('permissions: 7 (rwd) → 1 (r--)');

    const from = proxy.seen.length;
    const r = await toDst(['apply', '-f', changed]);
    expect(r.code, r.stderr).toBe(0);
    expect(writesSince(from)).toEqual(['PUT /v1/api-keys']);
    expect(keysOf(dst).find((k) => k.name === 'Sales demo key')!.permissions).toBe(1);
    // back as the file says
    expect((await toDst(['apply', '-f', file])).code).toBe(0);
  });

  it('a removed expiry is an update to none', async () => {
    const id = keysOf(dst).find((k) => k.name === 'Sales demo key')!.id;
    expect((await toDst(['keys', 'update', String(id), '--expires', '2099-01-01T00:00:00Z'])).code).toBe(0);
    const d = await toDst(['diff', '-f', file, '-o', 'json']);
    expect(JSON.parse(d.stdout).steps[0].changes).toEqual([{ field: 'expireDate', from: '2099-01-01T00:00:00.000Z', to: null }]);
    expect((await toDst(['apply', '-f', file])).code).toBe(0);
    expect(keysOf(dst).find((k) => k.name === 'Sales demo key')!.expireDate).toBeNull();
  });

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

describe('validation first', () => {
  const bad = async (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    const from = proxy.seen.length;
    const r = await toDst(['apply', '-f', p]);
    expect(r.code).toBe(2);
    expect(proxy.seen.slice(from)).toEqual([]);
    return r.stderr;
  };

  it('an unknown field is exit 2 naming the line and the field, nothing sent', async () => {
    const err = await bad('unknown.yaml', 'version: 1\nkeys:\n  - name: ci\n    ownerId: admin\n    permissions: 3\n    color: blue\n');
    expect(err).toContain('unknown.yaml:6: keys[0].color: unknown field');
  });

  it('a value outside the schema is exit 2 naming line and field', async () => {
    const err = await bad('perm.yaml', 'version: 1\nkeys:\n  - name: ci\n    ownerId: admin\n    permissions: 9\n');
    expect(err).toMatch(/perm\.yaml:5: keys\[0\]\.permissions: /);
    const time = await bad(
      'time.yaml',
      'version: 1\nkeys:\n  - name: ci\n    ownerId: admin\n    permissions: 1\n    expireDate: tomorrow\n',
    );
    expect(time).toContain('time.yaml:6: keys[0].expireDate: expected an RFC 3339 time');
  });

  it('a record twice, a password, a missing version: each named', async () => {
    const twice = await bad(
      'twice.yaml',
      'version: 1\nkeys:\n  - {name: ci, ownerId: admin, permissions: 1}\n  - {name: ci, ownerId: admin, permissions: 3}\n',
    );
    expect(twice).toContain('twice.yaml:4: keys[1]: ci is already on line 3');
    const pw = await bad('pw.yaml', 'version: 1\nresources:\n  - code: k\n    name: K\n    password: hunter2\n');
    expect(pw).toContain('pw.yaml:5: resources[0].password: a state file never carries passwords');
    expect(pw).not.toContain('hunter2');
    expect(await bad('nov.yaml', 'keys: []\n')).toContain('version: expected 1 (missing)');
  });

  it('two keys of one name on the service are exit 1 naming both', async () => {
    const { id } = keysOf(src).find((k) => k.name === 'Sales demo key')!;
    const other = keysOf(src).find((k) => k.name === 'Customer demo key')!.id;
    src.db.prepare('UPDATE api_keys SET name = ? WHERE id = ?').run('Sales demo key', other);
    try {
      const r = await fromSrc(['state', 'export', '--nouns', 'keys']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`"Sales demo key" (ids ${Math.min(id, other)}, ${Math.max(id, other)})`);
      expect(r.stdout).toBe('');
    } finally {
      src.db.prepare('UPDATE api_keys SET name = ? WHERE id = ?').run('Customer demo key', other);
    }
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

describe('round trip in JSON with inline data', () => {
  it('a service matches its own export', async () => {
    const r = await fromSrc(['state', 'export', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.resources[0].data).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const p = join(dir, 'inline.json');
    writeFileSync(p, r.stdout);
    const d = await fromSrc(['diff', '-f', p, '--prune', '--exit-code']);
    expect(d.code, d.stdout + d.stderr).toBe(0);
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
