/**
 * `lic resources get` in-process against the real service on port 0: the record shown,
 * --data-out (bytes exactly as created from real files, to a file or stdout; --clobber;
 * never onto a directory or a device), -o json, bad ids, and a signing key's keySize
 * and publicKeyToken.
 */
import { SHARED_DATA } from '../../helpers/shared-data.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { http } from '../../helpers/service.js';
import { runCliBytes } from './run-bytes.js';
import { useService } from '../../helpers/fixtures.js';
import { generatedKey } from '../../dotnet/generated-key.js';
import { NOWHERE, resourceSteps } from './steps.js';

const DATA = SHARED_DATA;
const SNK = join(DATA, 'Keys.snk');
const HTML = join(DATA, 'new-license-email.html');
const haveData = existsSync(SNK) && existsSync(HTML);
if (!haveData) console.warn(`SKIPPED: resource round trips of real files need ${DATA} (Keys.snk, new-license-email.html)`);
const haveSnk = existsSync(SNK);
if (!haveSnk) console.warn(`SKIPPED: resources get of the real Keys.snk needs ${SNK}`);

const dir = tempDir('lic-res-');
const { svc, env } = useService();
const { unique, storedRow, createVia, create, file } = resourceSteps(svc, env, dir);
const k2048 = generatedKey(2048);
const junk = Buffer.from('<html><body>not a key</body></html>');

/** `field\tvalue` lines of a piped `resources get` → an object. */
const fieldsOf = (stdout: string) =>
  Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t')),
  );

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

describe('--data-out', () => {
  it('never onto a device: /dev/null is refused (the write renames over its target), exit 2, nothing sent', async () => {
    const r = await runCli(['resources', 'get', '1', '--data-out', '/dev/null'], {
      env: { LIC_BASE_URL: 'http://127.0.0.1:9', LIC_API_KEY: 'api_aaaaaaaaaaaaaaaaaaaaaaaa' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('lic: --data-out /dev/null: is not a regular file; use --data-out - and redirect stdout\n');
  });
});

describe('resources get of a signing key', () => {
  it('an RSA/SNK key pair shows keySize (bits) and publicKeyToken after size', async () => {
    const { id } = await create('RSA', 'SNK', k2048.pair);
    const r = await runCli(['resources', 'get', String(id)], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(fieldsOf(r.stdout)).toMatchObject({ size: '1172', keySize: '2048', publicKeyToken: k2048.token });
    expect(r.stdout).toMatch(/^size\t1172\nkeySize\t2048\npublicKeyToken\t[0-9a-f]{16}\n/m);
  });

  it('-o json is the service body with keySize and publicKeyToken added to the record; --raw and --json FIELDS leave them out', async () => {
    const { id } = await create('RSA', 'SNK', k2048.pair);
    const direct = await http(svc, 'GET', `/v1/resources?filter=${encodeURIComponent(`Id = ${id}`)}&take=1`, { key: svc.adminKey });
    const json = await runCli(['resources', 'get', String(id), '-o', 'json'], { env });
    expect(json.code, json.stderr).toBe(0);
    const body = JSON.parse(json.stdout);
    expect(body).toEqual({
      ...direct.body,
      resources: [{ ...direct.body.resources[0], keySize: 2048, publicKeyToken: k2048.token }],
    });
    const ndjson = await runCli(['resources', 'get', String(id), '-o', 'ndjson'], { env });
    expect(JSON.parse(ndjson.stdout)).toMatchObject({ id, keySize: 2048, publicKeyToken: k2048.token });
    const csv = await runCli(['resources', 'get', String(id), '-o', 'csv'], { env });
    const [head, row] = csv.stdout.trim().split('\n');
    expect(head!.split(',').slice(-2)).toEqual(['keySize', 'publicKeyToken']);
    expect(row!.split(',').slice(-2)).toEqual(['2048', k2048.token]);
    const raw = await runCli(['resources', 'get', String(id), '-o', 'json', '--raw'], { env });
    expect(JSON.parse(raw.stdout)).toEqual(direct.body);
    const some = await runCli(['resources', 'get', String(id), '--json', 'id,name'], { env });
    expect(JSON.parse(some.stdout).resources[0]).toEqual({ id, name: direct.body.resources[0].name });
  });

  it('a public key alone (PUBLICKEYBLOB) or as sn -p writes it gives the key pair’s token; format and type in any case', async () => {
    for (const [type, format, data] of [
      ['RSA', 'SNK', k2048.pub],
      ['rsa', 'snk', k2048.snPublic],
    ] as const) {
      const { id } = await create(type, format, data);
      const r = await runCli(['resources', 'get', String(id), '-o', 'ndjson'], { env });
      expect(JSON.parse(r.stdout)).toMatchObject({ keySize: 2048, publicKeyToken: k2048.token });
    }
  });

  it('other resources get no key fields: an e-mail template, an RSA key in PFX format, SNK data under another type', async () => {
    for (const [type, format, data] of [
      ['email', 'html', junk],
      ['RSA', 'PFX', junk],
      ['MappingFile', 'SNK', k2048.pair],
    ] as const) {
      const { id } = await create(type, format, data);
      const r = await runCli(['resources', 'get', String(id), '-o', 'ndjson'], { env });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(Object.keys(JSON.parse(r.stdout))).not.toContain('publicKeyToken');
    }
  });

  it('an RSA/SNK resource whose data is no key: exit 0, the record without key fields, a warning on stderr saying why', async () => {
    const { id } = await create('RSA', 'SNK', k2048.pair.subarray(0, 300));
    const r = await runCli(['resources', 'get', String(id)], { env });
    expect(r.code).toBe(0);
    expect(fieldsOf(r.stdout)).not.toHaveProperty('keySize');
    expect(r.stderr).toBe(
      `lic: warning: resource ${id} is of type RSA, format SNK, but its data is not a strong-name key: the key pair (PRIVATEKEYBLOB) is 300 bytes; a 2048-bit key takes 1172\n`,
    );
  });

  it.skipIf(!haveSnk)('the real Keys.snk: a 1024-bit key pair, token 790be717c1fbe6a7', async () => {
    const { id } = await create('RSA', 'SNK', readFileSync(SNK));
    const r = await runCli(['resources', 'get', String(id)], { env });
    expect(fieldsOf(r.stdout)).toMatchObject({ size: '596', keySize: '1024', publicKeyToken: '790be717c1fbe6a7' });
  });
});
