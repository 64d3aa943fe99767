/**
 * The real binary end to end: `lic serve --seed demo` as a child process, then every list
 * command through bin/lic against it, then SIGTERM. Needs `npm run build` first (npm test
 * does it); dist/ is what bin/lic runs.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, spawnLic } from '../helpers/spawn.js';

const DIST = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));

interface IssuedKey {
  userId: string;
  role: string;
  key: string;
}

const dir = mkdtempSync(join(tmpdir(), 'lic-e2e-demo-'));
const dbPath = join(dir, 'lic.db');
const keysFile = join(dir, 'keys.json');
/** keeps every child away from the real home, profiles and data dir */
const isolated = { HOME: dir, LIC_CONFIG_DIR: join(dir, 'config'), LIC_DATA_DIR: join(dir, 'data') };

let server: ChildProcessWithoutNullStreams | undefined;
let serverStderr = '';
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
let url: string;
let keys: IssuedKey[];
let db: Database.Database;

const keyOf = (role: string) => keys.find((k) => k.role === role)!.key;
const lic = (role: string, args: string[]) => spawnLic(args, { env: { ...isolated, LIC_BASE_URL: url, LIC_API_KEY: keyOf(role) } });

/** Runs bin/lic and keeps stdout as bytes (spawnLic joins chunks as text, which could split a UTF-8 sequence). */
function licBytes(role: string, args: string[]): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', ...isolated, LIC_BASE_URL: url, LIC_API_KEY: keyOf(role) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr }));
  });
}

/** Resolves with the first stdout line of the server (its URL); rejects if it exits or takes over 30 s. */
function firstLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`lic serve printed no URL in 30 s; stderr: ${serverStderr}`)), 30_000);
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, nl).trim());
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`lic serve exited with ${code} before printing its URL; stderr: ${serverStderr}`));
    });
  });
}

/** The keys file is written right after the URL: wait until it is there and parses. */
async function readKeys(): Promise<IssuedKey[]> {
  for (let i = 0; i < 300; i++) {
    if (existsSync(keysFile)) {
      try {
        return (JSON.parse(readFileSync(keysFile, 'utf8')) as { keys: IssuedKey[] }).keys;
      } catch {
        /* being written */
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no keys file ${keysFile}; server stderr: ${serverStderr}`);
}

beforeAll(async () => {
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run \`npm run build\` first (npm test does)`);
  server = spawn(
    process.execPath,
    [BIN, 'serve', '--seed', 'demo', '--port', '0', '--db', dbPath, '--keys-file', keysFile, '--no-profile'],
    { env: { PATH: process.env.PATH ?? '', ...isolated }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  server.stderr.on('data', (d) => (serverStderr += d));
  exited = new Promise((resolve) => server!.on('exit', (code, signal) => resolve({ code, signal })));
  url = await firstLine(server);
  keys = await readKeys();
  db = new Database(dbPath, { readonly: true, fileMustExist: true });
}, 60_000);

afterAll(async () => {
  db?.close();
  if (server && server.exitCode === null && server.signalCode === null) {
    server.kill('SIGTERM');
    await exited;
  }
});

describe('lic serve --seed demo, then every list command through bin/lic', () => {
  it('serve prints its URL first, writes one key per role to the keys file (0600), and none to stdout', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(keys.map((k) => k.role).sort()).toEqual(['Administrator', 'Customer', 'LicenseManager', 'Sales']);
    for (const k of keys) expect(k.key).toMatch(/^api_[a-z0-9]{24}$/);
    expect(statSync(keysFile).mode & 0o777).toBe(0o600);
    for (const k of keys) expect(serverStderr).not.toContain(k.key);
  });

  it('keys list', async () => {
    const r = await lic('Administrator', ['keys', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(4);
    for (const k of keys) expect(r.stdout).not.toContain(k.key);
  });

  it('log list', async () => {
    const r = await lic('Administrator', ['log', 'list', '--take', '20']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(20);
  });

  it('orders list --customer ID (Administrator and Sales)', async () => {
    const customer = db
      .prepare('SELECT customer_id FROM orders GROUP BY customer_id ORDER BY count(*) DESC LIMIT 1')
      .pluck()
      .get() as number;
    const count = db.prepare('SELECT count(*) FROM orders WHERE customer_id = ?').pluck().get(customer) as number;
    for (const role of ['Administrator', 'Sales']) {
      const r = await lic(role, ['orders', 'list', '--customer', String(customer)]);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trim().split('\n');
      expect(lines).toHaveLength(count);
      for (const l of lines) expect(l.split('\t')).toHaveLength(8);
    }
  });

  it('templates list --product P --release R, and templates show of each, byte for byte', async () => {
    const { p, r: rel } = db
      .prepare('SELECT product_id AS p, release_id AS r FROM license_templates GROUP BY release_id ORDER BY count(*) DESC LIMIT 1')
      .get() as { p: number; r: number };
    const rows = db.prepare('SELECT id, template FROM license_templates WHERE release_id = ? ORDER BY id').all(rel) as {
      id: number;
      template: string;
    }[];
    const list = await lic('LicenseManager', ['templates', 'list', '--product', String(p), '--release', String(rel)]);
    expect(list.code, list.stderr).toBe(0);
    expect(
      list.stdout
        .trim()
        .split('\n')
        .map((l) => Number(l.split('\t')[0])),
    ).toEqual(rows.map((x) => x.id));
    for (const t of rows) {
      const show = await licBytes('Administrator', ['templates', 'show', String(t.id), '--product', String(p), '--release', String(rel)]);
      expect(show.code, show.stderr).toBe(0);
      expect(show.stdout.equals(Buffer.from(t.template, 'utf8'))).toBe(true);
    }
    const json = await lic('Administrator', [
      'templates',
      'show',
      String(rows[0]!.id),
      '--product',
      String(p),
      '--release',
      String(rel),
      '-o',
      'json',
    ]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).licenseTemplates[0]).toMatchObject({
      id: rows[0]!.id,
      template: rows[0]!.template,
      productId: p,
      releaseId: rel,
    });
  });

  it('products list --customer CODE with the Customer key', async () => {
    const customer = keys.find((k) => k.role === 'Customer')!;
    const code = db.prepare('SELECT customer_code FROM users WHERE id = ?').pluck().get(customer.userId) as string;
    const count = db
      .prepare('SELECT count(*) FROM customer_products cp JOIN customers c ON c.id = cp.customer_id WHERE c.code = ?')
      .pluck()
      .get(code) as number;
    const r = await lic('Customer', ['products', 'list', '--customer', code]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(count);
    expect(count).toBeGreaterThan(0);
  });

  it('resources list and assemblies list', async () => {
    const help = await lic('Administrator', ['--help']);
    for (const noun of ['resources', 'assemblies']) {
      expect(help.stdout, `lic --help lists ${noun}`).toMatch(new RegExp(`^\\s+${noun}\\b`, 'm'));
      const r = await lic('Administrator', [noun, 'list']);
      expect(r.code, `${noun}: ${r.stderr}`).toBe(0);
      expect(r.stdout.trim().length).toBeGreaterThan(0);
    }
  });

  it('a usage error through the binary: exit 2, nothing on stdout, no stack trace', async () => {
    const r = await lic('Administrator', ['orders', 'list', '--customer', '0']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("option '--customer <id>'");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('SIGTERM stops the server: it finishes and exits 0', async () => {
    server!.kill('SIGTERM');
    const { code, signal } = await exited;
    expect(signal).toBeNull();
    expect(code).toBe(0);
    expect(serverStderr).toContain('SIGTERM');
  });
});
