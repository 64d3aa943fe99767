/** Signing keys among resources: `resources get` key size and token, SNK warnings of create/update; against the real service on port 0. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { http } from '../../helpers/service.js';
import { SHARED_DATA } from '../../helpers/shared-data.js';
import { spawnLic } from '../../helpers/spawn.js';
import { generatedKey } from '../../dotnet/generated-key.js';
import { useService } from '../../helpers/fixtures.js';

const KEYS_SNK = join(SHARED_DATA, 'Keys.snk');
const haveSnk = existsSync(KEYS_SNK);
if (!haveSnk) console.warn(`SKIPPED: resources get of the real Keys.snk needs ${KEYS_SNK}`);

const dir = tempDir('lic-snk-');
const k2048 = generatedKey(2048);
const junk = Buffer.from('<html><body>not a key</body></html>');
const { svc, env } = useService();

let seq = 0;
const unique = (p = 'k') => `${p}-${++seq}`;
function file(name: string, content: Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}
const storedData = (id: number) => (svc.db.prepare('SELECT data FROM resources WHERE id = ?').get(id) as { data: Buffer }).data;
const count = () => svc.db.prepare('SELECT count(*) FROM resources').pluck().get() as number;

async function create(type: string, format: string, data: Buffer): Promise<{ id: number; stderr: string }> {
  const r = await runCli(
    ['resources', 'create', '-o', 'json', '--name', unique(), '--type', type, '--format', format, '--data-file', file(unique('f'), data)],
    { env },
  );
  expect(r.code, r.stderr).toBe(0);
  return { id: JSON.parse(r.stdout).resourceId, stderr: r.stderr };
}
/** `field\tvalue` lines of a piped `resources get` → an object. */
const fieldsOf = (stdout: string) =>
  Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t')),
  );

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
    const { id } = await create('RSA', 'SNK', readFileSync(KEYS_SNK));
    const r = await runCli(['resources', 'get', String(id)], { env });
    expect(fieldsOf(r.stdout)).toMatchObject({ size: '596', keySize: '1024', publicKeyToken: '790be717c1fbe6a7' });
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

  it('update with new data: checked against the stored type and format when the flags do not give them', async () => {
    const { id: key } = await create('RSA', 'SNK', k2048.pair);
    const path = file('j3', junk);
    const r = await runCli(['resources', 'update', String(key), '--data-file', path], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^lic: warning: --data-file ${path}: not a strong-name key \\(\\.snk\\)`));
    expect(Buffer.compare(storedData(key), junk)).toBe(0);
    // an e-mail template: no warning; the same template turned into an RSA/SNK key by flags: a warning
    const { id: mail } = await create('email', 'html', junk);
    // in a pipe a success says nothing: stderr empty means no warning
    expect((await runCli(['resources', 'update', String(mail), '--data-file', path], { env })).stderr).toBe('');
    const turned = await runCli(['resources', 'update', String(mail), '--type', 'RSA', '--format', 'SNK', '--data-file', path], { env });
    expect(turned.stderr).toMatch(/^lic: warning: --data-file/);
    // a valid key as new data: silent
    expect((await runCli(['resources', 'update', String(key), '--data-file', file('k', k2048.pair)], { env })).stderr).toBe('');
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
