/**
 * `lic resources create` in-process against the real service on port 0: the fields sent,
 * the record printed, required flags, --data-file (limits, empty data and --allow-empty,
 * a data file that is no strong-name key), the write-only password (--password-stdin,
 * --password-prompt) and the roles that may create.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envFor, runCli, tempDir } from '../../helpers/cli.js';
import { addUserWithKey } from '../../helpers/service.js';
import { MAX_DATA_BYTES } from '../../../src/commands/resources/input.js';
import { runCliBytes } from './run-bytes.js';
import { useService } from '../../helpers/fixtures.js';
import { spawnLic } from '../../helpers/spawn.js';
import { generatedKey } from '../../dotnet/generated-key.js';
import { NOWHERE, resourceSteps } from './steps.js';
import { useDryRun } from '../../helpers/dry-run.js';
import { writeFileSync } from 'node:fs';

const dir = tempDir('lic-res-');
const { svc, env } = useService();
const { dryRun } = useDryRun(svc);
const { unique, count, storedRow, storedData, createVia, create, file } = resourceSteps(svc, env, dir);
const k2048 = generatedKey(2048);
const junk = Buffer.from('<html><body>not a key</body></html>');

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

// the input guard: an empty data file or stdin (a cron line that lost its redirect)
describe('empty data', () => {
  it('--data-file - with an empty stdin: exit 2, one line naming the flag and --allow-empty, nothing created', async () => {
    const before = count();
    const r = await runCli(['resources', 'create', '--name', 'cron', '--type', 'x', '--data-file', '-'], { env, stdin: '' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('lic: --data-file -: stdin is empty; nothing was sent (add --allow-empty to store empty data)\n');
    expect(count()).toBe(before);
  });

  it('an empty file too; on update the stored data stays', async () => {
    const empty = file('empty.bin', '');
    const before = count();
    const c = await runCli(['resources', 'create', '--name', 'e1', '--type', 'x', '--data-file', empty], { env });
    expect(c.code).toBe(2);
    expect(c.stderr).toBe(`lic: --data-file ${empty}: the file is empty; nothing was sent (add --allow-empty to store empty data)\n`);
    expect(count()).toBe(before);
    const made = await runCli(['resources', 'create', '--name', 'e2', '--type', 'x', '--data-file', '-', '-o', 'json'], {
      env,
      stdin: 'payload',
    });
    const id = JSON.parse(made.stdout).resourceId as number;
    const u = await runCli(['resources', 'update', String(id), '--data-file', empty], { env });
    expect(u.code).toBe(2);
    expect(storedData(id).toString()).toBe('payload');
  });

  it('--allow-empty stores empty data, on create and update', async () => {
    const c = await runCli(['resources', 'create', '--name', 'e3', '--type', 'x', '--data-file', '-', '--allow-empty', '-o', 'json'], {
      env,
      stdin: '',
    });
    expect(c.code, c.stderr).toBe(0);
    const id = JSON.parse(c.stdout).resourceId as number;
    expect(storedData(id).length).toBe(0);
    await runCli(['resources', 'update', String(id), '--data-file', file('full.bin', 'x')], { env });
    expect(storedData(id).toString()).toBe('x');
    const u = await runCli(['resources', 'update', String(id), '--data-file', '-', '--allow-empty'], { env, stdin: '' });
    expect(u.code, u.stderr).toBe(0);
    expect(storedData(id).length).toBe(0);
  });
});

describe('a data file that is no strong-name key is a warning, not an error', () => {
  it('create --type RSA --format SNK stores it as given, warns on stderr naming --data-file and the reason', async () => {
    const path = file('junk.snk', junk);
    const r = await runCli(
      ['resources', 'create', '-o', 'json', '--name', unique(), '--type', 'RSA', '--format', 'SNK', '--data-file', path],
      {
        env,
      },
    );
    expect(r.code).toBe(0);
    const id = JSON.parse(r.stdout).resourceId;
    expect(Buffer.compare(storedData(id), junk)).toBe(0);
    expect(r.stderr).toBe(
      `lic: warning: --data-file ${path}: not a strong-name key (.snk): the first byte is 0x3c, expected 0x07 (a key pair) or 0x06 (a public key), and it is no strong-name public key blob either; it is stored as given, but no assembly can be checked against it\n`,
    );
  });

  it('a valid key, or another type, gets no warning', async () => {
    expect((await create('RSA', 'SNK', k2048.pair)).stderr).toBe('');
    expect((await create('email', 'html', junk)).stderr).toBe('');
  });

  it('create --dry-run warns too and sends nothing (the plan on stdout)', async () => {
    const before = count();
    const r = await runCli(
      ['resources', 'create', '--name', unique(), '--type', 'RSA', '--format', 'SNK', '--data-file', file('j2', junk), '--dry-run'],
      { env },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ method: 'POST' });
    expect(r.stderr).toMatch(/^lic: warning: --data-file .*: not a strong-name key/);
    expect(count()).toBe(before);
  });

  it('the built CLI: stdout carries only the id, the warning goes to stderr', async () => {
    const r = await spawnLic(
      ['resources', 'create', '--name', unique(), '--type', 'RSA', '--format', 'SNK', '--data-file', file('j4', junk)],
      {
        env,
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^id\t\d+\n$/);
    expect(r.stderr).toMatch(/^lic: warning: --data-file .*; it is stored as given, but no assembly can be checked against it\n$/);
  });
});

describe('create --dry-run', () => {
  it('prints the request and sends no write: the password is "[redacted]"; data of any size is a placeholder (a 5-byte or 596-byte key pair is still a key)', async () => {
    const dir = tempDir();
    const small = join(dir, 'small.bin');
    const big = join(dir, 'big.bin');
    writeFileSync(small, Buffer.from('hello'));
    writeFileSync(big, Buffer.alloc(5000, 7));
    const a = await dryRun(['resources', 'create', '--name', 'k', '--type', 'RSA', '--data-file', small, '--password-stdin', '--dry-run'], {
      stdin: 'hunter2-secret',
    });
    expect(a.plan.body).toEqual({
      resource: { name: 'k', type: 'RSA', data: '[base64 of 5 bytes omitted]', password: '[redacted]' },
    });
    expect(a.stdout).not.toContain(Buffer.from('hello').toString('base64'));
    expect(a.stdout).not.toContain('hunter2-secret');
    const b = await dryRun(['resources', 'create', '--name', 'k', '--type', 'RSA', '--data-file', big, '--dry-run']);
    expect(b.plan.body.resource.data).toBe('[base64 of 5000 bytes omitted]');
  });
});
