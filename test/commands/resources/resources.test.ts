/** `lic resources ...` in-process against the real service on port 0. */
import { SHARED_DATA } from '../../helpers/shared-data.js';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { envFor, runCli, tempDir } from '../../helpers/cli.js';
import { addUserWithKey, http, openStoredSecret } from '../../helpers/service.js';
import { MAX_DATA_BYTES } from '../../../src/commands/resources/input.js';
import { runCliBytes } from './run-bytes.js';
import { useService } from '../../helpers/fixtures.js';

const DATA = SHARED_DATA;
const SNK = join(DATA, 'Keys.snk');
const HTML = join(DATA, 'new-license-email.html');
const haveData = existsSync(SNK) && existsSync(HTML);
if (!haveData) console.warn(`SKIPPED: resource round trips of real files need ${DATA} (Keys.snk, new-license-email.html)`);

/** A closed port: a command that sent a request here would fail with exit 5, not 2. */
const NOWHERE = { LIC_BASE_URL: 'http://127.0.0.1:9', LIC_API_KEY: 'api_aaaaaaaaaaaaaaaaaaaaaaaa' };

const dir = tempDir('lic-res-');
const { svc, env } = useService();
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});

let seq = 0;
const unique = (p = 'r') => `${p}-${++seq}`;
const count = () => svc.db.prepare('SELECT count(*) FROM resources').pluck().get() as number;
/** A resource as stored, its password opened with the test key (it is sealed at rest) */
const storedRow = (id: number) => {
  const row = svc.db
    .prepare('SELECT name, type, code, description, source, password, data, data_format AS dataFormat FROM resources WHERE id = ?')
    .get(id) as
    | { name: string; type: string; code: string; description: string; source: string; password: string; data: Buffer; dataFormat: string }
    | undefined;
  return row && { ...row, password: openStoredSecret(row.password) };
};

/** `lic resources create ... -o json` → the new id. */
async function createVia(args: string[], o: { stdin?: string } = {}): Promise<number> {
  const r = await runCli(['resources', 'create', '-o', 'json', ...args], { env, stdin: o.stdin });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).resourceId;
}
function file(name: string, content: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

describe.skipIf(!haveData)('round trips of real files (Keys.snk, new-license-email.html)', () => {
  const cases = [
    { path: SNK, type: 'RSA', format: 'SNK' },
    { path: HTML, type: 'email', format: 'html' },
  ];

  it('the e-mail template really holds U+FEFF and the key pair is binary (the point of the test)', () => {
    expect(readFileSync(HTML).includes(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(true);
    expect(readFileSync(SNK).length).toBe(596);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(SNK))).toThrow();
  });

  for (const c of cases) {
    it(`${c.format}: --data-file PATH then get --data-out PATH gives the same bytes; SIZE and the record shown`, async () => {
      const original = readFileSync(c.path);
      const id = await createVia(['--name', unique(c.format), '--type', c.type, '--format', c.format, '--data-file', c.path]);
      expect(Buffer.compare(storedRow(id)!.data, original)).toBe(0);
      const out = join(dir, `${unique('out')}.bin`);
      const g = await runCli(['resources', 'get', String(id), '--data-out', out], { env, stderrTTY: true });
      expect(g.code, g.stderr).toBe(0);
      expect(Buffer.compare(readFileSync(out), original)).toBe(0);
      expect(g.stderr).toContain(`Wrote ${original.length} bytes`);
      const fields = Object.fromEntries(
        g.stdout
          .trim()
          .split('\n')
          .map((l) => l.split('\t')),
      );
      expect(fields).toMatchObject({ id: String(id), type: c.type, format: c.format, size: String(original.length) });
      expect(g.stdout).not.toContain(original.toString('base64').slice(0, 40));
    });

    it(`${c.format}: --data-file - (stdin bytes) then --data-out - (stdout bytes) gives the same bytes, no newline added`, async () => {
      const original = readFileSync(c.path);
      const cr = await runCliBytes(
        ['resources', 'create', '-o', 'json', '--name', unique(c.format), '--type', c.type, '--format', c.format, '--data-file', '-'],
        { env, stdin: original },
      );
      expect(cr.code, cr.stderr).toBe(0);
      const id = JSON.parse(cr.stdout.toString()).resourceId;
      const g = await runCliBytes(['resources', 'get', String(id), '--data-out', '-'], { env });
      expect(g.code, g.stderr).toBe(0);
      expect(g.stdout.length).toBe(original.length);
      expect(Buffer.compare(g.stdout, original)).toBe(0);
    });
  }

  it('the list table shows ID, NAME, TYPE, FORMAT, CODE, SIZE, UPDATED, DESCRIPTION with the size in bytes', async () => {
    const name = unique('table');
    const id = await createVia([
      '--name',
      name,
      '--type',
      'RSA',
      '--format',
      'SNK',
      '--code',
      `${name}-c`,
      '--description',
      'the key',
      '--data-file',
      SNK,
    ]);
    const piped = await runCli(['resources', 'list', '--take', '1000'], { env });
    expect(piped.code).toBe(0);
    const row = piped.stdout
      .split('\n')
      .find((l) => l.startsWith(`${id}\t`))!
      .split('\t');
    expect(row.slice(0, 6)).toEqual([String(id), name, 'RSA', 'SNK', `${name}-c`, '596']);
    expect(row[6]).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(row[7]).toBe('the key');
    const tty = await runCli(['resources', 'list', '--take', '1000'], { env: { ...env, NO_COLOR: '1' }, tty: true });
    // the header is the first line (no box around the table)
    expect(tty.stdout.split('\n')[0]).toMatch(/ID\W+NAME\W+TYPE\W+FORMAT\W+CODE\W+SIZE\W+UPDATED\W+DESCRIPTION/);
    expect(tty.stdout).toMatch(new RegExp(`\\b${id}\\W+${name}\\W+RSA\\W+SNK\\W+${name}-c\\W+596\\b`));
  });
});

describe('create', () => {
  it('sends only the given fields; a fresh resource without data has size 0', async () => {
    const name = unique();
    const id = await createVia(['--name', name, '--type', 'note', '--source', 'src', '--description', 'desc', '--code', `${name}-c`]);
    expect(storedRow(id)).toMatchObject({
      name,
      type: 'note',
      code: `${name}-c`,
      description: 'desc',
      source: 'src',
      dataFormat: '',
      password: '',
    });
    expect(storedRow(id)!.data.length).toBe(0);
  });

  it('prints the new id as a record (table) and the server body unchanged (-o json)', async () => {
    const t = await runCli(['resources', 'create', '--name', unique(), '--type', 'x'], { env });
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/^id\t\d+\n$/);
    const j = await runCli(['resources', 'create', '--name', unique(), '--type', 'x', '-o', 'json'], { env });
    expect(Object.keys(JSON.parse(j.stdout)).sort()).toEqual(['code', 'message', 'resourceId', 'success']);
  });

  it('--name and --type are required (exit 2, nothing sent)', async () => {
    const before = count();
    for (const args of [
      ['--type', 'RSA'],
      ['--name', 'n'],
    ]) {
      const r = await runCli(['resources', 'create', ...args], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--(name|type)/);
    }
    expect(count()).toBe(before);
  });

  it('--name "" or over 256 characters is a usage error', async () => {
    for (const name of ['', 'n'.repeat(257)]) {
      const r = await runCli(['resources', 'create', '--name', name, '--type', 'x'], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--name must be 1..256 characters');
    }
  });

  it('a taken name is exit 1 with the service message naming resource.name', async () => {
    const name = unique();
    await createVia(['--name', name, '--type', 'x']);
    const r = await runCli(['resources', 'create', '--name', name, '--type', 'x'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`resource.name "${name}" is already taken`);
    expect(r.stderr).toContain('HTTP 409, code 6');
  });

  it('data file errors are usage errors naming --data-file: missing, a directory', async () => {
    const before = count();
    const missing = await runCli(['resources', 'create', '--name', unique(), '--type', 'x', '--data-file', join(dir, 'nope.bin')], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--data-file ${join(dir, 'nope.bin')}: no such file`);
    const d = join(dir, 'a-dir');
    mkdirSync(d, { recursive: true });
    const isDir = await runCli(['resources', 'create', '--name', unique(), '--type', 'x', '--data-file', d], { env });
    expect(isDir.code).toBe(2);
    expect(isDir.stderr).toContain(`--data-file ${d}: is a directory`);
    expect(missing.stderr + isDir.stderr).not.toMatch(/\n\s+at /);
    expect(count()).toBe(before);
    expect((await runCli(['resources', 'create', '--name', 'x', '--type', 'x', '--data-file', d], { env: NOWHERE })).code).toBe(2);
  });

  it(`a data file of exactly 7 MiB is stored whole; one byte more is refused before sending (exit 2)`, async () => {
    const max = Buffer.alloc(MAX_DATA_BYTES, 0xa5);
    const okPath = file('max.bin', max);
    const id = await createVia(['--name', unique('max'), '--type', 'blob', '--data-file', okPath]);
    expect(storedRow(id)!.data.length).toBe(MAX_DATA_BYTES);
    const before = count();
    const big = file('big.bin', Buffer.alloc(MAX_DATA_BYTES + 1));
    const r = await runCli(['resources', 'create', '--name', unique('big'), '--type', 'blob', '--data-file', big], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--data-file ${big}: ${MAX_DATA_BYTES + 1} bytes is more than the limit of ${MAX_DATA_BYTES} bytes`);
    expect(count()).toBe(before);
    // refused before any request: pointed at a closed port it is still a usage error, not a network one (exit 5)
    const offline = await runCli(['resources', 'create', '--name', 'x', '--type', 'blob', '--data-file', big], { env: NOWHERE });
    expect(offline.code).toBe(2);
    const viaStdin = await runCliBytes(['resources', 'create', '--name', unique('big'), '--type', 'blob', '--data-file', '-'], {
      env,
      stdin: Buffer.alloc(MAX_DATA_BYTES + 1),
    });
    expect(viaStdin.code).toBe(2);
    expect(viaStdin.stderr).toContain('--data-file -:');
  });
});

describe('password (write-only, never in argv)', () => {
  const secret = 'S3cret pass-phrase \u00e9 7c1e';

  it('no option takes the password as a value', async () => {
    for (const verb of ['create', 'update']) {
      const help = await runCli(['resources', verb, '--help'], { env });
      expect(help.stdout).toContain('--password-stdin');
      expect(help.stdout).not.toMatch(/--password[\w-]*\s+</);
    }
    const r = await runCli(['resources', 'create', '--name', unique(), '--type', 'RSA', '--password', 'x'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--password'");
  });

  it('--password-stdin stores it (one trailing newline dropped); it never shows in json, table, get or the log', async () => {
    const name = unique('pw');
    const id = await createVia(['--name', name, '--type', 'RSA', '--password-stdin'], { stdin: `${secret}\n` });
    expect(storedRow(id)!.password).toBe(secret);
    const outputs = [
      await runCli(['resources', 'list', '-o', 'json'], { env }),
      await runCli(['resources', 'list'], { env }),
      await runCli(['resources', 'list'], { env, tty: true }),
      await runCli(['resources', 'get', String(id)], { env }),
      await runCli(['resources', 'get', String(id), '-o', 'json'], { env }),
      await runCli(['log', 'list', '-o', 'json', '--take', '1000'], { env }),
      await runCli(['-v', 'resources', 'update', String(id), '--password-stdin'], { env, stdin: `${secret}-2` }),
    ];
    for (const o of outputs) {
      expect(o.code, o.stderr).toBe(0);
      expect(o.stdout + o.stderr).not.toContain('S3cret');
    }
    expect(JSON.parse(outputs[0]!.stdout).resources.find((r: { id: number }) => r.id === id).password).toBe('');
    expect(storedRow(id)!.password).toBe(`${secret}-2`);
    expect(JSON.stringify(svc.db.prepare('SELECT * FROM log').all())).not.toContain('S3cret');
  });

  it('--password-prompt asks with a hidden prompt on a terminal', async () => {
    const r = await runCli(['resources', 'create', '--name', unique('pp'), '--type', 'RSA', '--password-prompt', '-o', 'json'], {
      env,
      tty: true,
      secret: ['from-prompt'],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.prompts).toEqual([expect.stringContaining('Password for resource')]);
    expect(storedRow(JSON.parse(r.stdout).resourceId)!.password).toBe('from-prompt');
  });

  it('--password-prompt off a terminal, an empty password, or two readers of stdin are usage errors, nothing sent', async () => {
    const before = count();
    const base = ['resources', 'create', '--name', unique('pe'), '--type', 'RSA'];
    const noTty = await runCli([...base, '--password-prompt'], { env });
    expect(noTty.code).toBe(2);
    expect(noTty.stderr).toContain('--password-stdin');
    const empty = await runCli([...base, '--password-stdin'], { env, stdin: '\n' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--password-stdin: stdin was empty');
    const both = await runCli([...base, '--password-stdin', '--data-file', '-'], { env, stdin: 'x' });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('both read stdin');
    const two = await runCli([...base, '--password-stdin', '--password-prompt'], { env, stdin: 'x' });
    expect(two.code).toBe(2);
    expect(count()).toBe(before);
  });
});

describe('get', () => {
  it('an unknown id is exit 4 "no resource with id N"', async () => {
    const r = await runCli(['resources', 'get', '2147483647'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('no resource with id 2147483647');
  });

  it.each(['0', '-1', 'abc', '2147483648', '1.5'])('id %s is a usage error (exit 2) before any request', async (id) => {
    const r = await runCli(['resources', 'get', id], { env: NOWHERE });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('expected a positive integer id');
  });

  it('-o json prints the server body unchanged', async () => {
    const id = await createVia(['--name', unique('json'), '--type', 'email', '--data-file', file('j.html', '<b>hi</b>')]);
    const r = await runCli(['resources', 'get', String(id), '-o', 'json'], { env });
    const direct = await http(svc, 'GET', `/v1/resources?filter=${encodeURIComponent(`Id = ${id}`)}&take=1`, { key: svc.adminKey });
    expect(JSON.parse(r.stdout)).toEqual(direct.body);
    expect(Buffer.from(direct.body.resources[0].data, 'base64').toString()).toBe('<b>hi</b>');
  });

  it('--data-out into a missing directory, or onto a directory, is a usage error; --data-out - with -o json too', async () => {
    const id = await createVia(['--name', unique('do'), '--type', 'x', '--data-file', file('d.txt', 'abc')]);
    const noDir = await runCli(['resources', 'get', String(id), '--data-out', join(dir, 'no', 'such', 'f')], { env });
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toContain('--data-out');
    const onDir = await runCli(['resources', 'get', String(id), '--data-out', dir], { env });
    expect(onDir.code).toBe(2);
    expect(onDir.stderr).toContain('is a directory');
    const both = await runCli(['resources', 'get', String(id), '--data-out', '-', '-o', 'json'], { env });
    expect(both.code).toBe(2);
  });

  it('--data-out refuses an existing file without --clobber (exit 2, file untouched); with it, replaces it whole and leaves no temporary file', async () => {
    const out = file('replace.txt', 'old old old old old');
    const id = await createVia(['--name', unique('rep'), '--type', 'x', '--data-file', file('new.txt', 'new')]);
    const refused = await runCli(['resources', 'get', String(id), '--data-out', out], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`lic: --data-out ${out}: the file exists; nothing was written (add --clobber to replace it)\n`);
    expect(readFileSync(out, 'utf8')).toBe('old old old old old');
    // refused before any request: a closed port would be exit 5
    expect((await runCli(['resources', 'get', '1', '--data-out', out], { env: NOWHERE })).code).toBe(2);
    const r = await runCli(['resources', 'get', String(id), '--data-out', out, '--clobber'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('new');
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('update', () => {
  it('sends only the flags given: the data and the other fields stay', async () => {
    const name = unique('upd');
    const id = await createVia(
      ['--name', name, '--type', 'email', '--format', 'html', '--data-file', file('u.html', '<p>v1</p>'), '--password-stdin'],
      { stdin: 'pw1' },
    );
    const r = await runCli(['resources', 'update', String(id), '--description', 'changed'], { env, stderrTTY: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Updated resource ${id}.`);
    expect(storedRow(id)).toMatchObject({ name, type: 'email', dataFormat: 'html', description: 'changed', password: 'pw1' });
    expect(storedRow(id)!.data.toString()).toBe('<p>v1</p>');
    const d = await runCli(['resources', 'update', String(id), '--data-file', file('u2.html', '<p>v2</p>'), '--format', 'htm'], { env });
    expect(d.code).toBe(0);
    expect(storedRow(id)).toMatchObject({ dataFormat: 'htm', description: 'changed' });
    expect(storedRow(id)!.data.toString()).toBe('<p>v2</p>');
  });

  it('nothing to change is a usage error; an unknown id is exit 4', async () => {
    const none = await runCli(['resources', 'update', '5'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('nothing to change');
    const missing = await runCli(['resources', 'update', '2147483647', '--type', 'x'], { env });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('no resource with id 2147483647');
  });
});

describe('delete', () => {
  it('off a terminal it needs --yes; with it the resource goes', async () => {
    const id = await createVia(['--name', unique('del'), '--type', 'x']);
    const no = await runCli(['resources', 'delete', String(id)], { env });
    expect(no.code).toBe(2);
    expect(no.stderr).toContain('--yes');
    expect(storedRow(id)).toBeDefined();
    const yes = await runCli(['resources', 'delete', String(id), '--yes'], { env });
    expect(yes.code).toBe(0);
    expect(storedRow(id)).toBeUndefined();
    const again = await runCli(['resources', 'delete', String(id), '--yes'], { env });
    expect(again.code).toBe(4);
  });

  it('on a terminal it asks, naming the host and what goes; no keeps it', async () => {
    const id = await createVia(['--name', unique('ask'), '--type', 'x']);
    const no = await runCli(['resources', 'delete', String(id)], { env, tty: true, confirm: [false] });
    expect(no.code).toBe(1);
    expect(no.prompts[0]).toContain(`delete resource ${id} on ${new URL(svc.url).host}`);
    expect(storedRow(id)).toBeDefined();
    const ok = await runCli(['resources', 'delete', String(id)], { env, tty: true, confirm: [true] });
    expect(ok.code).toBe(0);
    expect(storedRow(id)).toBeUndefined();
  });
});

describe('roles through the CLI', () => {
  it('a Sales key may manage resources; a Customer key gets exit 3', async () => {
    const sales = await addUserWithKey(svc, 'cli-sales', 'Sales', 7);
    const customer = await addUserWithKey(svc, 'cli-cust', 'Customer', 7, 'C-00000009');
    const ok = await runCli(['resources', 'create', '--name', unique('sales'), '--type', 'x'], { env: envFor(svc, sales) });
    expect(ok.code, ok.stderr).toBe(0);
    const denied = await runCli(['resources', 'list'], { env: envFor(svc, customer) });
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain('role Customer');
  });
});
