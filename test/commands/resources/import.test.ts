/**
 * `lic resources import`: a bundle exported (`lic resources export`, export.test.ts) from one
 * real service (seeded with the demo dataset) imported into a second, empty one, twice (the
 * second run changes nothing), then with one byte changed (one update); dry runs behind a
 * recording proxy send no write; bad bundles are exit 2 naming the line, with nothing sent;
 * the options the verb seam hands the run function. Reading a huge bundle a line at a time
 * is import.stream.test.ts.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli, tempDir } from '../../helpers/cli.js';
import { startRecordingProxy, type RecordingProxy } from '../../helpers/recording-proxy.js';
import { addUserWithKey, http, startTestService, type TestService } from '../../helpers/service.js';
import { BIN, LIC_NODE, spawnLic } from '../../helpers/spawn.js';
import { parseVerb } from '../../helpers/verb-seam.js';

let src: TestService;
let dst: TestService;
/** the bundle `lic resources export` writes from the demo service */
let bundle: string;
let proxy: RecordingProxy;
const dir = tempDir('lic-bundle-');

beforeAll(async () => {
  [src, dst] = await Promise.all([startTestService({ seed: 'demo' }), startTestService()]);
  proxy = await startRecordingProxy(dst.url);
  // the bundle every import below reads: the demo's resources, as export writes them
  const r = await runCli(['resources', 'export'], { env: envFor(src, src.adminKey) });
  expect(r.code, r.stderr).toBe(0);
  bundle = r.stdout;
});
afterAll(async () => {
  await proxy.close();
  await Promise.all([src.close(), dst.close()]);
});

const toDst = (args: string[], stdin?: string) => runCli(args, { env: envFor(dst, dst.adminKey), stdin });
/** Through the recording proxy in front of the destination, to see every request sent. */
const viaProxy = (args: string[]) => runCli(args, { env: envFor(proxy, dst.adminKey) });

interface StoredResource {
  id: number;
  name: string;
  type: string;
  code: string;
  description: string;
  source: string;
  dataFormat: string;
  data: Buffer;
}
const stored = (svc: TestService): StoredResource[] =>
  svc.db
    .prepare('SELECT id, name, type, code, description, source, data_format AS dataFormat, data FROM resources ORDER BY id')
    .all() as StoredResource[];
const logTotal = async (svc: TestService) =>
  (await http(svc, 'GET', '/v1/log?take=0', { key: svc.adminKey })).body.totalLogEntriesCount as number;
function file(name: string, content: string): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}
const lines = (text: string) => text.trimEnd().split('\n');

/** `script` run by bash (for its `<(…)`), with LIC_NODE and BIN (the CLI under test) and `env` in its environment. */
function inBash(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      env: { PATH: process.env.PATH ?? '', HOME: dir, LIC_CACHE_DIR: join(dir, 'cache'), LIC_NODE, BIN, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('import into a second service', () => {
  it('--dry-run sends only lookups and says what would be created', async () => {
    const path = file('dry.ndjson', bundle);
    const before = await logTotal(dst);
    const from = proxy.seen.length;
    const r = await viaProxy(['resources', 'import', path, '--dry-run', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ dryRun: true, created: lines(bundle).length, updated: 0, unchanged: 0, failed: 0 });
    expect(proxy.seen.slice(from).length).toBeGreaterThan(0);
    expect(proxy.seen.slice(from).filter((l) => !l.startsWith('GET '))).toEqual([]);
    expect(stored(dst)).toEqual([]);
    expect(await logTotal(dst)).toBe(before);
  });

  it('creates every resource the first time, byte for byte', async () => {
    const path = file('bundle.ndjson', bundle);
    const r = await toDst(['resources', 'import', path, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    const n = lines(bundle).length;
    expect(report).toMatchObject({ dryRun: false, created: n, updated: 0, unchanged: 0, failed: 0 });
    expect(report.items.map((i: { source: string }) => i.source)).toEqual(lines(bundle).map((_, i) => `${path}:${i + 1}`));
    const strip = (s: StoredResource) => ({ ...s, id: 0 });
    expect(stored(dst).map(strip)).toEqual(stored(src).map(strip));
    // the ids in the report are the new records'
    expect(report.items.map((i: { id: number }) => i.id)).toEqual(stored(dst).map((s) => s.id));
  });

  it('a second run changes nothing: all unchanged, no write reached the service', async () => {
    const path = file('bundle.ndjson', bundle);
    const from = proxy.seen.length;
    const before = await logTotal(dst);
    const r = await viaProxy(['resources', 'import', path]);
    expect(r.code, r.stderr).toBe(0);
    // the piped table: outcome, count
    expect(lines(r.stdout)).toEqual(['created\t0', 'updated\t0', `unchanged\t${lines(bundle).length}`, 'failed\t0']);
    expect(proxy.seen.slice(from).filter((l) => !l.startsWith('GET '))).toEqual([]);
    expect(await logTotal(dst)).toBe(before);
  });

  it('one changed byte is one update of just the data; the others stay unchanged', async () => {
    const records = lines(bundle).map((l) => JSON.parse(l));
    const bytes = Buffer.from(records[1].data, 'base64');
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0x01;
    records[1].data = bytes.toString('base64');
    const path = file('changed.ndjson', records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const id = stored(dst).find((s) => s.code === records[1].code)!.id;

    const dry = await viaProxy(['resources', 'import', path, '--dry-run', '--details']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`to update\t${id}\t${records[1].code}\t${path}:2\tdata`);
    expect(
      stored(dst)
        .find((s) => s.id === id)!
        .data.equals(bytes),
    ).toBe(false);

    const from = proxy.seen.length;
    const r = await viaProxy(['resources', 'import', path, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ created: 0, updated: 1, unchanged: records.length - 1, failed: 0 });
    expect(report.items[1]).toEqual({ item: records[1].code, source: `${path}:2`, outcome: 'updated', id, detail: 'data' });
    expect(proxy.seen.slice(from).filter((l) => !l.startsWith('GET '))).toEqual(['PUT /v1/resources']);
    expect(
      stored(dst)
        .find((s) => s.id === id)!
        .data.equals(bytes),
    ).toBe(true);
  });

  it('reads the bundle from stdin with -', async () => {
    const r = await toDst(['resources', 'import', '-', '-o', 'json'], bundle);
    expect(r.code, r.stderr).toBe(0);
    // the byte changed in the test before is changed back
    expect(JSON.parse(r.stdout)).toMatchObject({ created: 0, updated: 1, failed: 0 });
    expect(JSON.parse(r.stdout).items[0].source).toBe('stdin:1');
  });

  it('reads a bundle given as a pipe (bash `<(cat FILE)`) through a copy: checked, then imported (one update)', async () => {
    // a pipe can be read once: the import's second pass reads the copy the check made
    const records = lines(bundle).map((l) => JSON.parse(l));
    records[0].description = `${records[0].description} (piped)`;
    const path = file('piped.ndjson', records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const r = await inBash('"$LIC_NODE" "$BIN" resources import <(cat "$BUNDLE") -o json', { ...envFor(dst, dst.adminKey), BUNDLE: path });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ created: 0, updated: 1, unchanged: records.length - 1, failed: 0 });
    expect(report.items[0]).toMatchObject({ item: records[0].code, outcome: 'updated', detail: 'description' });
    expect(report.items[0].source).toMatch(/^\/dev\/fd\/\d+:1$/);
    expect(stored(dst).find((s) => s.code === records[0].code)!.description).toBe(records[0].description);
    // back as the bundle has it, for the tests below
    expect((await toDst(['resources', 'import', file('restore.ndjson', bundle)])).code).toBe(0);
  });
});

describe('bundles edited on Windows', () => {
  it('a byte-order mark and CRLF line ends are read like the original', async () => {
    const path = file('crlf.ndjson', '\ufeff' + lines(bundle).join('\r\n') + '\r\n');
    const r = await toDst(['resources', 'import', path, '--dry-run', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ created: 0, updated: 0, unchanged: lines(bundle).length, failed: 0 });
  });
});

describe('failures and passwords', () => {
  const line = (o: Record<string, string>) =>
    JSON.stringify({ name: 'n', type: 'email', code: 'c', description: '', source: '', dataFormat: 'html', data: 'PHA+PC9wPg==', ...o });

  it('a resource the service refuses fails alone: the others are created, the row says why, exit 1', async () => {
    const taken = stored(dst)[0]!.name;
    const path = file('clash.ndjson', [line({ name: taken, code: 'clash-1' }), line({ name: 'fresh one', code: 'fresh-1' })].join('\n'));
    const r = await toDst(['resources', 'import', path, '-o', 'json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ created: 1, failed: 1 });
    expect(report.items[0]).toMatchObject({ item: 'clash-1', outcome: 'failed' });
    expect(report.items[0].detail).toContain('already taken');
    expect(r.stderr).toContain(`clash-1 (${path}:1) failed:`);
    expect(r.stderr).toContain('1 of 2 resources failed');
    expect(stored(dst).some((s) => s.code === 'fresh-1')).toBe(true);
  });

  it('a PKCS #12 resource is created without a password and named on stderr with the command that sets it', async () => {
    const path = file('pfx.ndjson', line({ name: 'ci signing pfx', type: 'RSA', code: 'ci-pfx', dataFormat: 'PFX', data: 'MIIBAA==' }));
    const r = await toDst(['resources', 'import', path, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const id = JSON.parse(r.stdout).items[0].id as number;
    expect(r.stderr).toContain(`resource ci-pfx (PFX) was created without a password`);
    expect(r.stderr).toContain(`lic resources update ${id} --password-prompt`);
  });
});

describe('a key that may only read', () => {
  it('can dry-run an import (lookups only), and a real import stops at the first write with exit 3', async () => {
    const readOnly = await addUserWithKey(dst, 'reader', 'Administrator', 1);
    const path = file(
      'ro.ndjson',
      JSON.stringify({ name: 'ro new', type: 'email', code: 'ro-new', description: '', source: '', dataFormat: 'html', data: '' }),
    );
    const env = envFor(dst, readOnly);
    const dry = await runCli(['resources', 'import', path, '--dry-run', '-o', 'json'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, created: 1 });
    const real = await runCli(['resources', 'import', path], { env });
    expect(real.code).toBe(3);
    expect(real.stderr).toContain('HTTP 403');
    expect(real.stdout).toBe('');
    expect(stored(dst).some((s) => s.code === 'ro-new')).toBe(false);
  });
});

describe('bad bundles: exit 2 naming the line, nothing sent', () => {
  const good = JSON.stringify({ name: 'ok', type: 'email', code: 'ok-1', description: '', source: '', dataFormat: 'html', data: '' });
  const cases: { what: string; text: string; message: string }[] = [
    { what: 'not JSON', text: `${good}\n{"name": oops}\n`, message: 'line 2: not valid JSON' },
    { what: 'an array', text: `[1]\n`, message: 'line 1: expected a JSON object (a resource), got an array' },
    { what: 'a missing code', text: `${good.replace('"code":"ok-1",', '')}\n`, message: 'line 1: field code is missing' },
    { what: 'an empty code', text: `${good.replace('"ok-1"', '""')}\n`, message: 'line 1: field code:' },
    { what: 'a wrong type', text: `${good.replace('"name":"ok"', '"name":7')}\n`, message: 'line 1: field name: must be string' },
    { what: 'an unknown field', text: `${good.replace('{', '{"color":"red",')}\n`, message: 'line 1: unknown field color' },
    {
      what: 'a password',
      text: `${good.replace('{', '{"password":"hunter2",')}\n`,
      message: 'line 1: field password: a bundle never carries passwords',
    },
    { what: 'data not base64', text: `${good.replace('"data":""', '"data":"%%%"')}\n`, message: 'line 1: field data: not standard base64' },
    { what: 'a repeated code', text: `${good}\n\n${good}\n`, message: 'line 3: field code: "ok-1" is already on line 1' },
    { what: 'no record at all', text: '\n\n', message: 'the bundle is empty' },
  ];
  it.each(cases)('$what', async ({ text, message }) => {
    const path = file('bad.ndjson', text);
    const from = proxy.seen.length;
    const r = await viaProxy(['resources', 'import', path]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toContain('hunter2');
    expect(r.stdout).toBe('');
    expect(proxy.seen.length).toBe(from);
  });

  it('a missing file is exit 2 naming it', async () => {
    const r = await viaProxy(['resources', 'import', join(dir, 'nope.ndjson')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, 'nope.ndjson')}: no such file`);
  });

  it('bytes that are not UTF-8 are exit 2', async () => {
    const path = join(dir, 'latin1.ndjson');
    writeFileSync(path, Buffer.from([0x7b, 0xff, 0x7d, 0x0a]));
    const r = await viaProxy(['resources', 'import', path]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('line 1: not UTF-8 text');
    expect(readFileSync(path).length).toBe(4);
  });
});

describe('the built CLI, spawned', () => {
  it('export | import between the two services: everything unchanged by now', async () => {
    const out = await spawnLic(['resources', 'export'], { env: envFor(src, src.adminKey) });
    expect(out.code, out.stderr).toBe(0);
    const r = await spawnLic(['resources', 'import', '-', '--details'], { env: envFor(dst, dst.adminKey), stdin: out.stdout });
    expect(r.code, r.stderr).toBe(0);
    const rows = lines(r.stdout);
    // per-resource rows (outcome, id, code, source, detail), then the counts
    expect(rows.slice(0, -4).every((l) => l.startsWith('unchanged\t'))).toBe(true);
    expect(rows.slice(-4)).toEqual(['created\t0', 'updated\t0', `unchanged\t${lines(out.stdout).length}`, 'failed\t0']);
  });
});

describe('options → the run function', () => {
  it.each<[string[], unknown]>([
    [['resources', 'import', '-'], { file: '-', details: undefined }],
    [['resources', 'import', 'b.ndjson', '--details', '--dry-run'], { file: 'b.ndjson', details: true }],
  ])('%j', async (argv, expected) => {
    expect(await parseVerb(argv)).toEqual({ opts: expected });
  });
});

describe('usage errors name the flag or argument', () => {
  it.each<[string[], string]>([
    [['resources', 'import'], "missing required argument 'file'"],
    [['resources', 'import', 'a', 'b'], 'too many arguments'],
  ])('%j', async (argv, message) => {
    const r = await parseVerb(argv);
    expect(r.opts).toBeUndefined();
    expect(r.error).toContain(message);
  });
});
