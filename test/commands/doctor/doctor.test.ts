/**
 * `lic doctor` in-process against the real service (behind a recording proxy that
 * shows it sends only GETs): the role inferred from the endpoint table for a key of each
 * role, a key without Read, a revoked key, no key, a dead service, a profile store with
 * mode 0644, clock skew, and the `-o json` shape. Exit 0 only when every check passes.
 */
import { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, type RunOptions } from '../../helpers/cli.js';
import { nodeCheck } from '../../../src/commands/doctor/index.js';
import { closedPort } from '../../helpers/fake-server.js';
import { startRecordingProxy, type RecordingProxy } from '../../helpers/recording-proxy.js';
import { addUserWithKey, http } from '../../helpers/service.js';
import { useService } from '../../helpers/fixtures.js';

let proxy: RecordingProxy;

const { svc } = useService();
beforeAll(async () => {
  proxy = await startRecordingProxy(svc.url);
});
afterAll(async () => {
  await proxy.close();
});

interface Report {
  ok: boolean;
  checks: { name: string; ok: boolean; level: string; detail: string; fix?: string }[];
  endpoints: { endpoint: string; path: string; status?: number; access: string }[];
  role: string | null;
}

/** A new profile directory holding profile `name` with `key` in the profile file (`--insecure-storage`: chosen, so no fallback notice); returns the directory. */
async function fileProfile(name: string, key: string): Promise<string> {
  const dir = tempDir();
  const add = await runCli(['profile', 'add', name, '--base-url', proxy.url, '--api-key-stdin', '--insecure-storage'], {
    configDir: dir,
    stdin: key,
  });
  expect(add.code, add.stderr).toBe(0);
  expect(add.stderr).toBe('');
  return dir;
}

/** `lic doctor -o json` with `key` (undefined: none) against the proxy; returns the exit code, the report and what was sent. */
async function doctor(key: string | undefined, o: RunOptions & { args?: string[] } = {}) {
  const from = proxy.seen.length;
  const r = await runCli(['doctor', '-o', 'json', ...(o.args ?? [])], {
    ...o,
    env: { LIC_BASE_URL: proxy.url, LIC_API_KEY: key, ...o.env },
  });
  if (key) expect(r.stdout + r.stderr).not.toContain(key);
  const report = JSON.parse(r.stdout) as Report;
  return { ...r, report, sent: proxy.seen.slice(from), check: (name: string) => report.checks.find((c) => c.name === name)! };
}

const access = (rep: Report) => Object.fromEntries(rep.endpoints.map((e) => [e.endpoint, e.access]));

describe('lic doctor: what the key may do', () => {
  const cases: [string, string, Record<string, string>][] = [
    [
      'Administrator',
      'admin-r',
      {
        keys: 'allowed',
        resources: 'allowed',
        assemblies: 'allowed',
        log: 'allowed',
        orders: 'allowed',
        templates: 'allowed',
        products: 'denied',
      },
    ],
    [
      'LicenseManager',
      'lm-r',
      {
        keys: 'denied',
        resources: 'allowed',
        assemblies: 'allowed',
        log: 'allowed',
        orders: 'denied',
        templates: 'allowed',
        products: 'denied',
      },
    ],
    [
      'Sales',
      'sales-r',
      {
        keys: 'denied',
        resources: 'allowed',
        assemblies: 'denied',
        log: 'allowed',
        orders: 'allowed',
        templates: 'denied',
        products: 'denied',
      },
    ],
    [
      'Customer',
      'cust-r',
      {
        keys: 'denied',
        resources: 'denied',
        assemblies: 'denied',
        log: 'denied',
        orders: 'denied',
        templates: 'denied',
        products: 'allowed',
      },
    ],
  ];
  for (const [role, user, table] of cases) {
    it(`a Read key of a ${role}: the endpoint table and the role; exit 0; only GETs sent`, async () => {
      const key = await addUserWithKey(svc, user, role, 1, role === 'Customer' ? 'C-7K2M9Q4X' : undefined);
      const r = await doctor(key);
      expect(r.code, r.stderr).toBe(0);
      expect(r.report.ok).toBe(true);
      expect(r.report.role).toBe(role);
      expect(access(r.report)).toEqual(table);
      expect(r.check('permissions').detail).toBe(`role ${role} (likely); Read bit set`);
      expect(r.check('API key')).toMatchObject({ ok: true, detail: `${key.slice(0, 8)}… accepted` });
      expect(r.sent).toHaveLength(7);
      expect(r.sent.every((l) => l.startsWith('GET '))).toBe(true);
    });
  }

  it('writes nothing: the audit log is unchanged after a run with the Administrator key', async () => {
    const total = async () => (await http(svc, 'GET', '/v1/log?take=0', { key: svc.adminKey })).body.totalLogEntriesCount;
    const before = await total();
    expect((await doctor(svc.adminKey)).code).toBe(0);
    expect(await total()).toBe(before);
  });

  it('a key without the Read bit: every endpoint denied, the permissions check fails naming Read; exit 1', async () => {
    const key = await addUserWithKey(svc, 'admin-w', 'Administrator', 6);
    const r = await doctor(key);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('lic: 1 check did not pass\n');
    expect(new Set(Object.values(access(r.report)))).toEqual(new Set(['denied']));
    expect(r.report.role).toBeNull();
    expect(r.check('permissions')).toMatchObject({
      ok: false,
      level: 'fail',
      detail: expect.stringContaining('lacks the Read bit (1)'),
      fix: expect.stringContaining('--perm read'),
    });
    expect(r.check('API key').ok).toBe(true);
  });
});

describe('lic doctor: failures it reports (exit 1, never a crash)', () => {
  it('a revoked key: "not accepted" with a fix; the other endpoints are not probed', async () => {
    const made = await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { permissions: 7 } } });
    await http(svc, 'PUT', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { id: made.body.apiKeyId, revoked: true } } });
    const r = await doctor(made.body.key);
    expect(r.code).toBe(1);
    expect(r.check('API key')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^api_.{4}… not accepted \(HTTP 401/),
      fix: expect.stringContaining('lic keys create'),
    });
    expect(r.check('reachable').ok).toBe(true);
    expect(r.sent).toHaveLength(1);
    expect(r.report.endpoints).toEqual([]);
  });

  it('no key configured: the API key check fails with `lic profile add`; exit 1, not 3', async () => {
    const r = await doctor(undefined);
    expect(r.code).toBe(1);
    expect(r.check('API key')).toMatchObject({ ok: false, fix: expect.stringContaining('lic profile add') });
    expect(r.check('reachable').ok).toBe(true);
  });

  it('a dead service (closed port): reachability fails with a fix, exit 1', async () => {
    const port = await closedPort();
    const r = await runCli(['doctor', '-o', 'json'], { env: { LIC_BASE_URL: `http://127.0.0.1:${port}`, LIC_API_KEY: svc.adminKey } });
    expect(r.code).toBe(1);
    const rep = JSON.parse(r.stdout) as Report;
    expect(rep.checks.find((c) => c.name === 'reachable')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('connection refused'),
      fix: expect.stringContaining('--base-url'),
    });
    expect(rep.endpoints).toEqual([]);
    expect(r.stdout + r.stderr).not.toContain(svc.adminKey);
  });

  it('a profile store with mode 0644: a warning with `chmod 600 PATH`; settings say where they came from', async () => {
    const dir = tempDir();
    const add = await runCli(['profile', 'add', 'dev', '--base-url', proxy.url, '--api-key-stdin'], {
      configDir: dir,
      stdin: svc.adminKey,
    });
    expect(add.code, add.stderr).toBe(0);
    const path = join(dir, 'profiles.json');
    chmodSync(path, 0o644);
    const r = await runCli(['doctor', '-o', 'json'], { configDir: dir });
    expect(r.code).toBe(1);
    const rep = JSON.parse(r.stdout) as Report;
    expect(rep.checks.find((c) => c.name === 'config file')).toMatchObject({
      ok: false,
      level: 'warn',
      detail: expect.stringContaining('mode 0644'),
      fix: `chmod 600 ${path}`,
    });
    expect(rep.checks.find((c) => c.name === 'settings')!.detail).toBe(
      `profile dev (from default profile); base URL ${proxy.url} (from profile dev); API key ${svc.adminKey.slice(0, 8)}… (from profile dev); timeout 30s (from default), retries 2 (from default)`,
    );
    // no keyring in the test context (as on a server): the Administrator key went to the file, where it has to be,
    // and the key storage check reads the file's real mode (it said "mode 0600" whatever the mode)
    expect(rep.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['config file', 'key storage']);
    expect(rep.checks.find((c) => c.name === 'key storage')).toEqual({
      name: 'key storage',
      ok: false,
      level: 'warn',
      detail: `profile dev: an Administrator key in plain text in ${path}, which has mode 0644: other accounts on this machine can read it`,
      fix: `chmod 600 ${path}`,
    });
    chmodSync(path, 0o600);
    const fixed = await runCli(['doctor', '--profile', 'dev', '-o', 'json'], { configDir: dir });
    expect(fixed.code, fixed.stdout).toBe(0);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const after = JSON.parse(fixed.stdout) as Report;
    expect(after.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual([]);
    expect(after.checks.find((c) => c.name === 'settings')!.detail).toMatch(/^profile dev \(from --profile\)/);
  });

  it('an Administrator key in the profile file on a machine with no keyring: a note (exit 0) with advice that works there, not `profile migrate`', async () => {
    const dir = tempDir();
    const add = await runCli(['profile', 'add', 'dev', '--base-url', proxy.url, '--api-key-stdin'], {
      configDir: dir,
      stdin: svc.adminKey,
    });
    expect(add.code, add.stderr).toBe(0);
    const path = join(dir, 'profiles.json');
    const r = await runCli(['doctor', '-o', 'json'], { configDir: dir });
    expect(r.code, r.stdout).toBe(0);
    expect((JSON.parse(r.stdout) as Report).checks.find((c) => c.name === 'key storage')).toEqual({
      name: 'key storage',
      ok: true,
      level: 'note',
      detail: `profile dev: an Administrator key in plain text in ${path} (mode 0600); no keyring on this machine (no keyring in this test context)`,
      fix: 'nothing to move: keep the file private to this account (it is 0600), or pass the key from your secret store as LIC_API_KEY instead of saving it',
    });
    const table = await runCli(['doctor'], { configDir: dir });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^i\tkey storage\tprofile dev: an Administrator key in plain text .* — fix: nothing to move: /m);
    expect(table.stderr).toBe('');
  });

  it('an Administrator key in the profile file where a keyring is reachable: a warning (exit 1) naming `profile migrate --to keyring`', async () => {
    const dir = await fileProfile('dev', svc.adminKey);
    // a keyring that answers (empty): what a desktop session has
    const entries = new Map<string, string>();
    const keyring = {
      get: async (a: string) => entries.get(a),
      set: async (a: string, k: string) => void entries.set(a, k),
      delete: async (a: string) => entries.delete(a),
    };
    const r = await runCli(['doctor', '-o', 'json'], { configDir: dir, keyring });
    expect(r.code, r.stdout).toBe(1);
    expect((JSON.parse(r.stdout) as Report).checks.find((c) => c.name === 'key storage')).toEqual({
      name: 'key storage',
      ok: false,
      level: 'warn',
      detail: `profile dev: an Administrator key in plain text in ${join(dir, 'profiles.json')}`,
      fix: '`lic profile migrate --to keyring` moves it into the keyring',
    });
    expect(r.stderr).toBe('lic: 1 check did not pass\n');
    // doctor only read the keyring
    expect(entries.size).toBe(0);
  });

  it('a key in the profile file that is not an Administrator key: the key storage check passes, saying where it is', async () => {
    const dir = await fileProfile('sales', await addUserWithKey(svc, 'sales-file', 'Sales', 1));
    const r = await runCli(['doctor', '-o', 'json'], { configDir: dir });
    expect(r.code, r.stdout).toBe(0);
    expect((JSON.parse(r.stdout) as Report).checks.find((c) => c.name === 'key storage')).toEqual({
      name: 'key storage',
      ok: true,
      level: 'ok',
      detail: `profile sales: in plain text in ${join(dir, 'profiles.json')} (mode 0600)`,
    });
  });

  it('a key in a profile file that group or others can read (0644, 0640): key storage warns with its mode and `chmod 600 FILE`; 0400 passes as it is', async () => {
    const dir = await fileProfile('sales', await addUserWithKey(svc, 'sales-open', 'Sales', 1));
    const path = join(dir, 'profiles.json');
    for (const mode of [0o644, 0o640]) {
      chmodSync(path, mode);
      const r = await runCli(['doctor', '-o', 'json'], { configDir: dir });
      expect(r.code, r.stdout).toBe(1);
      const octal = `0${mode.toString(8)}`;
      expect((JSON.parse(r.stdout) as Report).checks.find((c) => c.name === 'key storage')).toEqual({
        name: 'key storage',
        ok: false,
        level: 'warn',
        detail: `profile sales: the API key in plain text in ${path}, which has mode ${octal}: other accounts on this machine can read it`,
        fix: `chmod 600 ${path}`,
      });
      const table = await runCli(['doctor'], { configDir: dir });
      expect(table.stdout).toContain(`!\tkey storage\tprofile sales: the API key in plain text in ${path}, which has mode ${octal}`);
    }
    chmodSync(path, 0o400);
    const r = await runCli(['doctor', '-o', 'json'], { configDir: dir });
    expect((JSON.parse(r.stdout) as Report).checks.find((c) => c.name === 'key storage')).toEqual({
      name: 'key storage',
      ok: true,
      level: 'ok',
      detail: `profile sales: in plain text in ${path} (mode 0400)`,
    });
    chmodSync(path, 0o600);
  });

  it('a clock 5 minutes off the Date header: the clock check warns with a fix', async () => {
    const r = await doctor(svc.adminKey, { now: () => new Date(Date.now() + 300_000) });
    expect(r.code).toBe(1);
    expect(r.check('clock')).toMatchObject({
      ok: false,
      level: 'warn',
      detail: expect.stringMatching(/^30\d s ahead of the service/),
      fix: expect.stringContaining('NTP'),
    });
  });
});

describe('lic doctor: output', () => {
  it('-o json: one object {ok, checks[{name, ok, level, detail, fix?}], endpoints, role}', async () => {
    const r = await doctor(svc.adminKey);
    expect(Object.keys(r.report)).toEqual(['ok', 'checks', 'endpoints', 'role']);
    expect(r.report.checks.map((c) => c.name)).toEqual([
      'node',
      'config file',
      'settings',
      'reachable',
      'TLS',
      'clock',
      'API key',
      'permissions',
      'key storage',
    ]);
    expect(r.check('key storage')).toEqual({
      name: 'key storage',
      ok: true,
      level: 'ok',
      detail: 'from LIC_API_KEY: nothing stored by lic',
    });
    for (const c of r.report.checks) {
      expect(typeof c.detail).toBe('string');
      expect(c.fix === undefined).toBe(c.ok);
    }
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
  });

  it('piped table: one tab-separated line per check (mark, name, result), then the endpoint rows; no color', async () => {
    const r = await runCli(['doctor'], { env: { LIC_BASE_URL: proxy.url, LIC_API_KEY: svc.adminKey } });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^✓\tnode\tNode\.js /);
    expect(lines).toContain('✓\tpermissions\trole Administrator (likely); Read bit set');
    expect(lines).toContain('keys\t/v1/api-keys\tallowed\t200');
    expect(lines).toContain('orders\t/v1/customers/2147483647/orders\tallowed\t404');
    expect(r.stdout).not.toContain('\x1b[');
    expect(r.stdout).not.toContain(svc.adminKey);
  });
});

/** A self-signed certificate for 127.0.0.1 (openssl in a temporary directory); undefined without openssl. */
async function selfSigned(): Promise<{ cert: string; key: string } | undefined> {
  const { execFileSync } = await import('node:child_process');
  const { readFileSync } = await import('node:fs');
  const dir = tempDir('lic-tls-');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        'k.pem',
        '-out',
        'c.pem',
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { cwd: dir, stdio: 'pipe' },
    );
  } catch {
    return undefined;
  }
  return { cert: readFileSync(join(dir, 'c.pem'), 'utf8'), key: readFileSync(join(dir, 'k.pem'), 'utf8') };
}

describe('lic doctor: TLS', () => {
  it('a service whose certificate is not trusted: the TLS check fails with a fix, exit 1, no request got through', async (t) => {
    const pair = await selfSigned();
    if (!pair) return t.skip();
    const { createServer } = await import('node:https');
    let requests = 0;
    const server = createServer(pair, (_req, res) => (requests++, res.end('{}')));
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const r = await runCli(['doctor', '-o', 'json'], { env: { LIC_BASE_URL: `https://127.0.0.1:${port}`, LIC_API_KEY: svc.adminKey } });
      expect(r.code).toBe(1);
      const rep = JSON.parse(r.stdout) as Report;
      expect(rep.checks.find((c) => c.name === 'TLS')).toMatchObject({
        ok: false,
        detail: expect.stringMatching(/certificate/i),
        fix: expect.stringContaining('CA'),
      });
      expect(requests).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('lic doctor against any service implementing the API', () => {
  it('gRPC-style error bodies, no Date header, an odd set of allowed endpoints: reports, never crashes', async () => {
    const { reply, startFake } = await import('../../helpers/fake-server.js');
    const fake = await startFake((socket, req) => {
      if (req.path.startsWith('/v1/resources')) reply(socket, 200, '{}');
      else reply(socket, 403, '{"code":7,"message":"Permission denied"}');
    });
    try {
      const r = await runCli(['doctor', '-o', 'json'], { env: { LIC_BASE_URL: fake.url, LIC_API_KEY: 'api_abcdefghijklmnopqrstuvwx' } });
      const rep = JSON.parse(r.stdout) as Report;
      expect(r.code, r.stdout).toBe(0);
      expect(rep.checks.find((c) => c.name === 'clock')).toMatchObject({ ok: true, detail: expect.stringContaining('no Date header') });
      expect(rep.role).toBeNull();
      expect(rep.checks.find((c) => c.name === 'permissions')!.detail).toBe('allowed: resources (matches no single role)');
      expect(fake.requests.map((q) => q.method)).toEqual(Array(7).fill('GET'));
      expect(r.stdout).not.toContain('api_abcdefghijklmnopqrstuvwx');
    } finally {
      await fake.close();
    }
  });

  it('a 500 on the first probe: the key check fails saying it could not tell', async () => {
    const { reply, startFake } = await import('../../helpers/fake-server.js');
    const fake = await startFake((socket) => reply(socket, 500, '{"success":false,"code":13,"message":"boom"}'));
    try {
      const r = await runCli(['doctor', '-o', 'json'], { env: { LIC_BASE_URL: fake.url, LIC_API_KEY: 'api_abcdefghijklmnopqrstuvwx' } });
      expect(r.code).toBe(1);
      expect((JSON.parse(r.stdout) as Report).checks.find((c) => c.name === 'API key')).toMatchObject({
        ok: false,
        detail: 'could not tell: GET /v1/api-keys answered HTTP 500',
      });
      expect(fake.requests).toHaveLength(1);
    } finally {
      await fake.close();
    }
  });
});

describe('lic doctor: the node check (src/cli/node-lines.json)', () => {
  const day = new Date('2026-11-25T12:00:00Z');
  it('below the floor fails, naming the supported lines and how to get one', () => {
    for (const v of ['20.20.2', 'v22.13.1', '18.0.0']) {
      const c = nodeCheck(v, day);
      expect(c.level).toBe('fail');
      expect(c.detail).toContain('lic needs Node.js 22, 24 or 26 (22.14.0 or newer)');
      expect(c.fix).toContain('nvm install 26');
    }
  });
  it('a supported line passes with its end-of-life date; the floor itself passes', () => {
    expect(nodeCheck('22.14.0', day)).toEqual({
      name: 'node',
      ok: true,
      level: 'ok',
      detail: 'Node.js 22.14.0 (supported until 2027-04-30)',
    });
    expect(nodeCheck('v26.10.0', day)).toMatchObject({ level: 'ok', detail: 'Node.js 26.10.0 (supported until 2029-04-30)' });
  });
  it('a line past its end of life warns, on the day it ends and after', () => {
    expect(nodeCheck('25.2.1', day)).toMatchObject({
      level: 'warn',
      detail: expect.stringContaining('Node 25 reached its end of life on 2026-06-01'),
    });
    expect(nodeCheck('22.23.0', new Date('2027-04-30T00:00:00Z'))).toMatchObject({ level: 'warn' });
    expect(nodeCheck('22.23.0', new Date('2027-04-29T23:59:59Z'))).toMatchObject({ level: 'ok' });
  });
  it('a line newer than the tested ones warns, and says what to do if anything fails', () => {
    const c = nodeCheck('28.0.0', day);
    expect(c).toMatchObject({ level: 'warn', detail: 'Node.js 28.0.0 is newer than the lines lic is tested on (22, 24 or 26)' });
    expect(c.fix).toMatch(/^if anything fails, install Node\.js 26/);
  });
  it('lic doctor reports the Node it runs on', async () => {
    const r = await doctor(svc.adminKey);
    const node = r.report.checks.find((c) => c.name === 'node');
    expect(node).toMatchObject({ ok: true, detail: expect.stringContaining(`Node.js ${process.versions.node}`) });
  });
});
