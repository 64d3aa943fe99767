/**
 * `lic serve` in-process: URL on stdout, keys on stderr once, profile `local`, reuse of a
 * database, a busy port, and shutdown on a (simulated) signal. Real signals to a spawned
 * process are in test/commands/serve/serve.spawned.test.ts.
 */
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir, type RunOptions, type RunResult } from '../../helpers/cli.js';
import { http } from '../../helpers/service.js';

interface Serving {
  url: string;
  /** sends the simulated signal; resolves with the finished run */
  stop(signal?: string): Promise<RunResult>;
  done: Promise<RunResult>;
  /** stderr so far */
  err(): string;
}

/** Runs `lic serve ARGS` until its URL is printed. */
async function serve(args: string[], o: RunOptions = {}): Promise<Serving> {
  let fire: ((sig: string) => void) | undefined;
  let out = '';
  let err = '';
  let gotUrl!: (u: string) => void;
  const url = new Promise<string>((r) => (gotUrl = r));
  const done = runCli(['serve', ...args], {
    ...o,
    onInterrupt: (h) => {
      fire = h;
      return () => (fire = undefined);
    },
    onOutput: (stream, chunk) => {
      if (stream === 'stderr') err += chunk;
      if (stream !== 'stdout') return;
      out += chunk;
      const m = /^(http:\/\/\S+)\n/.exec(out);
      if (m) gotUrl(m[1]!);
    },
  });
  const u = await Promise.race([url, done.then((r) => Promise.reject(new Error(`serve exited ${r.code}: ${r.stderr}`)))]);
  return {
    url: u,
    done,
    err: () => err,
    async stop(signal = 'SIGTERM') {
      // the handler is registered right after the URL is printed
      for (let i = 0; i < 100 && !fire; i++) await new Promise((r) => setTimeout(r, 10));
      fire!(signal);
      return done;
    },
  };
}

const profiles = (dir: string) => JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8'));

describe('lic serve', () => {
  it('prints only its URL on stdout, the new key on stderr, saves profile local (0600, default); SIGTERM stops it (exit 0)', async () => {
    const configDir = tempDir();
    const s = await serve(['--port', '0', '--db', ':memory:'], { configDir });
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const store = profiles(configDir);
    expect(store.defaultProfile).toBe('local');
    expect(store.profiles.local.baseUrl).toBe(s.url);
    expect(store.profiles.local.apiKey).toMatch(/^api_[a-z0-9]{24}$/);
    expect(statSync(join(configDir, 'profiles.json')).mode & 0o777).toBe(0o600);
    // the saved profile works right away, with no other configuration
    const list = await runCli(['keys', 'list', '-o', 'json'], { configDir });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).apiKeys).toEqual([
      expect.objectContaining({ id: 1, name: 'bootstrap', ownerId: 'admin', permissions: 7 }),
    ]);
    const r = await s.stop('SIGTERM');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${s.url}\n`);
    const key = store.profiles.local.apiKey;
    // the keys as an aligned table, the URL the last line printed (stdout), introduced by the last stderr line
    expect(r.stderr).toContain(`lic serve: new API keys, shown this once:\n  ROLE           USER   KEY\n  Administrator  admin  ${key}\n`);
    expect(r.stderr).toContain(`lic serve: Ctrl-C stops it; listening on ${s.url}\n`);
    expect(r.stderr).toContain('lic serve: saved the Administrator key as profile "local" (the default)');
    expect(r.stderr).toContain('lic serve: SIGTERM: finishing in-flight requests and closing the database');
    // and it is really closed
    await expect(http({ url: s.url }, 'GET', '/v1/log')).rejects.toThrow();
  });

  it('on an 80-column terminal its start text fits, with a 54-character database path and the keyring notice', async () => {
    const dir = tempDir();
    const db = join(dir, 'd'.repeat(Math.max(1, 54 - dir.length - 4)) + '.db');
    expect(db.length).toBeGreaterThanOrEqual(54);
    const s = await serve(['--port', '0', '--db', db, '--seed', 'demo'], {
      configDir: tempDir(),
      tty: true,
      env: { COLUMNS: '80', NO_COLOR: '1' },
    });
    const r = await s.stop();
    expect(r.code).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    // the keyring fallback (no keyring in tests) and the secret key file are among them
    expect(r.stderr).toContain('no keyring reachable');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
    // a path is never broken: it is whole on one line, in the new-database line and the secret key's
    expect(lines.filter((l) => l.includes(db))).toHaveLength(2);
  });

  it('SIGINT stops it too', async () => {
    const s = await serve(['--port', '0', '--db', ':memory:', '--no-profile']);
    const r = await s.stop('SIGINT');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('lic serve: SIGINT: finishing');
  });

  it('--no-profile saves nothing', async () => {
    const configDir = tempDir();
    const s = await serve(['--port', '0', '--db', ':memory:', '--no-profile'], { configDir });
    const r = await s.stop();
    expect(r.code).toBe(0);
    expect(existsSync(join(configDir, 'profiles.json'))).toBe(false);
    expect(r.stderr).toMatch(/Administrator +admin +api_[a-z0-9]{24}/);
    expect(r.stderr).not.toContain('profile "local"');
  });

  it('--keys-file: keys go to the file (0600), not to stderr', async () => {
    const dir = tempDir();
    const file = join(dir, 'keys.json');
    const s = await serve(['--port', '0', '--db', ':memory:', '--no-profile', '--keys-file', file]);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved).toEqual({
      baseUrl: s.url,
      keys: [{ userId: 'admin', role: 'Administrator', name: 'bootstrap', key: expect.stringMatching(/^api_[a-z0-9]{24}$/) }],
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const r = await s.stop();
    expect(r.stderr).not.toContain(saved.keys[0].key);
    expect(r.stderr).toContain(`1 API key(s) written to ${file} (mode 0600)`);
  });

  it('a second start on the same database makes no new key; the first key still works', async () => {
    const dir = tempDir();
    const db = join(dir, 'sub', 'lic.db');
    const configDir = tempDir();
    const first = await serve(['--port', '0', '--db', db], { configDir });
    const key = profiles(configDir).profiles.local.apiKey;
    await first.stop();
    const second = await serve(['--port', '0', '--db', db], { configDir: tempDir() });
    const ok = await http({ url: second.url }, 'GET', '/v1/api-keys', { key });
    expect(ok.status).toBe(200);
    expect(ok.body.apiKeys).toHaveLength(1);
    const r = await second.stop();
    expect(r.stderr).not.toMatch(/api_[a-z0-9]{24}/);
    expect(r.stderr).toContain('existing database');
    expect(r.stderr).not.toContain('saved the Administrator key');
  });

  it('a restart on another port moves profile "local" along when its key belongs to this database, and leaves a foreign one alone', async () => {
    const db = join(tempDir(), 'lic.db');
    const configDir = tempDir();
    const first = await serve(['--port', '0', '--db', db], { configDir });
    await first.stop();
    const second = await serve(['--port', '0', '--db', db], { configDir });
    expect(second.url).not.toBe(first.url);
    expect(profiles(configDir).profiles.local.baseUrl).toBe(second.url);
    const r = await second.stop();
    expect(r.stderr).toContain(`profile "local" now points at ${second.url}`);

    // another database: its keys are not the profile's, so the profile stays put
    const other = await serve(['--port', '0', '--db', join(tempDir(), 'other.db'), '--no-profile'], { configDir });
    expect(profiles(configDir).profiles.local.baseUrl).toBe(second.url);
    await other.stop();
  });

  it('without --db: lic.db in the data dir', async () => {
    const dataDir = tempDir();
    const s = await serve(['--port', '0', '--no-profile'], { dataDir });
    await s.stop();
    expect(existsSync(join(dataDir, 'lic.db'))).toBe(true);
  });

  it("a busy port: exit 1 with a clear message, no file or directory made; the next start is the database's first (its keys, the key file's notice)", async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const parent = tempDir();
    const db = join(parent, 'new', 'lic.db');
    const configDir = tempDir();
    try {
      const r = await runCli(['serve', '--port', String(port), '--db', db], { configDir });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`lic: port ${port} on 127.0.0.1 is already in use; choose another with --port (0 = any free port)\n`);
      expect(existsSync(join(configDir, 'profiles.json'))).toBe(false);
      // nothing left behind: not the database, its key file, its lock, nor the directory made for them
      expect(readdirSync(parent)).toEqual([]);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
    // the next successful start on that database is its first: it shows the key, says to back up the key file, and saves it
    const s = await serve(['--port', '0', '--db', db], { configDir });
    const r = await s.stop();
    expect(r.stderr).toMatch(/Administrator +admin +api_[a-z0-9]{24}/);
    expect(r.stderr).toContain(`lic serve: back up ${db}.key (0600) apart from the database`);
    expect(profiles(configDir).profiles.local.apiKey).toMatch(/^api_/);
  });

  it('a --db that is a directory, or under a file: exit 2 naming it, nothing made', async () => {
    const dir = tempDir();
    const asDir = await runCli(['serve', '--port', '0', '--db', dir, '--no-profile']);
    expect(asDir.code).toBe(2);
    expect(asDir.stderr).toBe(`lic: --db ${dir}: is a directory; give the database file, e.g. --db ${join(dir, 'lic.db')}\n`);
    writeFileSync(join(dir, 'a-file'), '');
    const under = join(dir, 'a-file', 'lic.db');
    const underFile = await runCli(['serve', '--port', '0', '--db', under, '--no-profile']);
    expect(underFile.code).toBe(2);
    expect(underFile.stderr).toBe(
      `lic: --db ${under}: cannot make its directory ${join(dir, 'a-file')}: a part of it is a file, not a directory\n`,
    );
    expect(readdirSync(dir)).toEqual(['a-file']);
  });

  it('a dataset file that cannot be read: exit 2, nothing listens', async () => {
    const missing = join(tempDir(), 'missing.json');
    const r = await runCli(['serve', '--port', '0', '--db', ':memory:', '--seed', missing, '--no-profile']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`lic: --seed ${missing}: cannot read it: no such file\n`);
  });

  it('a dataset with an escaped lone surrogate: exit 2 naming the field, nothing listens', async () => {
    const { writeFileSync } = await import('node:fs');
    const file = join(tempDir(), 'lone.json');
    writeFileSync(file, '{"users":[{"id":"admin","name":"A\\ud800","email":"","role":"Administrator"}]}');
    const r = await runCli(['serve', '--port', '0', '--db', ':memory:', '--seed', file, '--no-profile']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `lic: --seed ${file}: users.0.name holds an unpaired surrogate escape (\\uD800-\\uDFFF alone), which is not valid Unicode\n`,
    );
  });

  it('a malformed dataset: exit 2 naming the path of the bad field, nothing loaded and no file left', async () => {
    const dir = tempDir();
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        users: [{ id: 'admin', name: 'A', email: '', role: 'Administrator' }],
        apiKeys: [{ ownerId: 'admin', name: 'k', permissions: 7 }],
        customers: [{ id: 1, code: 'C-AAAAAAAA', name: 'x', email: '', country: 'DE', createdAt: '2025-01-18T00:00:00Z' }],
        orders: [
          {
            id: 1,
            orderNumber: 'O-1',
            status: 'Pending',
            processedBy: '',
            purchaseOrder: '',
            total: 1,
            currency: 'EUR',
            createdAt: '2025-01-18T00:00:00Z',
            updatedAt: '2025-01-18T00:00:00Z',
            invoiceNumber: '',
            paymentType: 'Invoice',
            paymentNumber: '',
            paymentStatus: 'Unpaid',
            paymentDate: '',
            description: '',
            customerId: 99,
            resellerId: 0,
            createdById: '',
          },
        ],
      }),
    );
    const db = join(dir, 'lic.db');
    const r = await runCli(['serve', '--port', '0', '--db', db, '--seed', file, '--no-profile']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/orders\[0\]\.customerId: no customer with id 99/);
    // the new database, its key file and its lock are gone: the next start is its first
    expect(readdirSync(dir)).toEqual(['bad.json']);
  });

  it('a --keys-file that cannot be written: the keys are shown on stderr instead, never lost', async () => {
    const configDir = tempDir();
    const s = await serve(['--port', '0', '--db', ':memory:', '--keys-file', join(tempDir(), 'no-such-dir', 'keys.json')], { configDir });
    const r = await s.stop();
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/cannot write --keys-file .*keys\.json/);
    const shown = /^ {2}Administrator +admin +(api_[a-z0-9]{24})$/m.exec(r.stderr)?.[1];
    expect(shown).toBe(profiles(configDir).profiles.local.apiKey);
  });

  it('--keys-file is written 0600 and replaces an older file', async () => {
    const { writeFileSync } = await import('node:fs');
    const file = join(tempDir(), 'keys.json');
    writeFileSync(file, 'old', { mode: 0o644 });
    const s = await serve(['--port', '0', '--db', ':memory:', '--keys-file', file, '--no-profile']);
    await s.stop();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).keys[0]).toMatchObject({ role: 'Administrator', userId: 'admin' });
  });
});

describe('lic serve --seed demo: what to try', () => {
  it("prints a command to try; with --verbose the Customer code, the products' latest releases and templates and the log's span, on stderr; each printed id works", async () => {
    const configDir = tempDir();
    const db = join(tempDir(), 'demo.db');
    let s = await serve(['--port', '0', '--db', db, '--seed', 'demo'], { configDir });
    try {
      const err = s.err();
      // without --verbose: one command to try, and where the rest is
      expect(err).toMatch(
        /^lic serve: data loaded; try: lic orders list --customer \d+\n {2}\(lic serve --verbose lists the ids to try\)$/m,
      );
      expect(err).not.toContain('--product');
      await s.stop();
      // a restart with --verbose: every id to try, on a database that already has them
      s = await serve(['--port', '0', '--db', db, '--verbose'], { configDir });
      const all = s.err();
      const code = /customer id (\d+), code (C-[A-Z0-9]{8}): .* \((\d+) orders\)/.exec(all);
      expect(code).not.toBeNull();
      expect(all).toContain(`lic products list --customer ${code![2]}`);
      expect(all).toContain(`lic orders list --customer ${code![1]}`);
      const products = [...all.matchAll(/--product (\d+) --release (\d+)\s+(.+?) (\d+\.\d+\.\d+); templates ([\d ]+)/g)];
      expect(products).toHaveLength(5);
      expect(all).toMatch(/log: [\d,]+ entries from \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d/);
      const customerKey = /^ {2}Customer +\S+ +(api_\S+)$/m.exec(err)![1]!;

      // the ids are the seeded data's: ask the running service with them (profile "local" = Administrator)
      const orders = await runCli(['orders', 'list', '--customer', code![1]!, '--all', '-o', 'ndjson'], { configDir });
      expect(orders.code).toBe(0);
      expect(orders.stdout.trim().split('\n')).toHaveLength(Number(code![3]));
      for (const [, product, release, , , templates] of products) {
        const t = await runCli(['templates', 'list', '--product', product!, '--release', release!, '-o', 'ndjson'], { configDir });
        expect(t.code).toBe(0);
        expect(
          t.stdout
            .trim()
            .split('\n')
            .map((l) => (JSON.parse(l) as { id: number }).id),
        ).toEqual(templates!.trim().split(' ').map(Number));
      }
      const mine = await runCli(['products', 'list', '--customer', code![2]!], { env: { LIC_BASE_URL: s.url, LIC_API_KEY: customerKey } });
      expect(mine.code).toBe(0);
      expect(mine.stdout.trim()).not.toBe('');
    } finally {
      const r = await s.stop();
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${s.url}\n`);
    }
  });

  it('templates list without --product/--release: a usage error that says where the ids come from, nothing sent', async () => {
    const r = await runCli(['templates', 'list'], { env: { LIC_BASE_URL: 'http://127.0.0.1:9', LIC_API_KEY: 'api_fakekey0123456789' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /required option '--product <id>' not specified: templates list needs a product id and the id of one of its releases \(`lic serve --verbose` prints the demo's when it starts\)/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    const one = await runCli(['templates', 'list', '--product', '1'], {
      env: { LIC_BASE_URL: 'http://127.0.0.1:9', LIC_API_KEY: 'api_fakekey0123456789' },
    });
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/required option '--release <id>' not specified: .*lic serve --verbose/);
  });
});
