/**
 * `lic assemblies import PATH… [--recursive]` against the real service: generated
 * assemblies (test/helpers/dotnet-assembly.ts, so CI needs no shared data) in a folder
 * tree with files that are not assemblies; the real DLLs of the shared data when present;
 * the options the verb seam hands the run function.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli, tempDir } from '../../helpers/cli.js';
import { buildAssembly, ECMA_KEY, MODULE_ROW } from '../../helpers/dotnet-assembly.js';
import { startRecordingProxy, type RecordingProxy } from '../../helpers/recording-proxy.js';
import { http } from '../../helpers/service.js';
import { SHARED_DATA } from '../../helpers/shared-data.js';
import { spawnLic } from '../../helpers/spawn.js';
import { useService } from '../../helpers/fixtures.js';
import { parseVerb } from '../../helpers/verb-seam.js';

const XML_LINQ = join(SHARED_DATA, 'System.Xml.Linq.dll');
const CECIL_ROCKS = join(SHARED_DATA, 'Mono.Cecil.Rocks.dll');
const haveData = existsSync(XML_LINQ) && existsSync(CECIL_ROCKS);
if (!haveData) console.warn(`SKIPPED: assemblies import of real DLLs needs ${SHARED_DATA} (System.Xml.Linq.dll, Mono.Cecil.Rocks.dll)`);

let proxy: RecordingProxy;
let env: Record<string, string>;
const { svc } = useService();
beforeAll(async () => {
  proxy = await startRecordingProxy(svc.url);
  env = envFor(proxy, svc.adminKey);
});
afterAll(async () => {
  await proxy.close();
});

const lic = (args: string[]) => runCli(args, { env });
const writes = (from: number) => proxy.seen.slice(from).filter((l) => !l.startsWith('GET '));
const registered = () =>
  svc.db.prepare('SELECT name, version, culture, public_key_token AS publicKeyToken FROM assemblies ORDER BY id').all() as {
    name: string;
    version: string;
    culture: string;
    publicKeyToken: string;
  }[];

/**
 * release/
 *   App.Core.dll        App.Core 1.2.0.0, strong-named with the ECMA key (token b77a5c561934e089)
 *   App.Core.xml        not read (a folder's files are its .dll and .exe)
 *   native.dll          a .dll that is not an assembly → skipped with a note
 *   plugins/App.Plugin.dll  App.Plugin 1.2.0.0, culture de, not strong-named (only with --recursive)
 *   plugins/copy/App.Core.dll  the same identity again → unchanged
 */
const root = tempDir('lic-asm-import-');
const release = join(root, 'release');
mkdirSync(join(release, 'plugins', 'copy'), { recursive: true });
const core = buildAssembly({ name: 'App.Core', version: [1, 2, 0, 0], publicKey: ECMA_KEY, tables: { before: { 0: MODULE_ROW } } });
writeFileSync(join(release, 'App.Core.dll'), core);
writeFileSync(join(release, 'App.Core.xml'), '<doc/>');
writeFileSync(join(release, 'native.dll'), Buffer.from('MZ but nothing else'));
writeFileSync(
  join(release, 'plugins', 'App.Plugin.dll'),
  buildAssembly({ name: 'App.Plugin', version: [1, 2, 0, 0], culture: 'de', tables: { before: { 0: MODULE_ROW } } }),
);
writeFileSync(join(release, 'plugins', 'copy', 'App.Core.dll'), core);

const CORE = 'App.Core, Version=1.2.0.0, Culture=neutral, PublicKeyToken=b77a5c561934e089';
const PLUGIN = 'App.Plugin, Version=1.2.0.0, Culture=de, PublicKeyToken=null';

describe('assemblies import (generated assemblies)', () => {
  it('--dry-run reads and looks up, sends no write, and says what would be registered', async () => {
    const from = proxy.seen.length;
    const r = await lic(['assemblies', 'import', release, '--recursive', '--dry-run', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ dryRun: true, created: 2, updated: 0, unchanged: 1, failed: 0 });
    expect(report.items.map((i: { item: string; outcome: string }) => [i.item, i.outcome])).toEqual([
      [CORE, 'created'],
      [PLUGIN, 'created'],
      [CORE, 'unchanged'],
    ]);
    expect(writes(from)).toEqual([]);
    expect(proxy.seen.length).toBeGreaterThan(from);
    expect(registered()).toEqual([]);
  });

  it('a folder without --recursive: its own assemblies registered, a non-assembly .dll skipped with a note on stderr', async () => {
    const from = proxy.seen.length;
    const r = await lic(['assemblies', 'import', release, '--details']);
    expect(r.code, r.stderr).toBe(0);
    expect(registered()).toEqual([{ name: 'App.Core', version: '1.2.0.0', culture: '', publicKeyToken: 'b77a5c561934e089' }]);
    expect(writes(from)).toEqual(['POST /v1/assemblies']);
    expect(r.stderr).toMatch(new RegExp(`skipped ${join(release, 'native.dll').replace(/[.]/g, '\\.')}: not a \\.NET assembly: `));
    expect(r.stderr).not.toContain('App.Core.xml');
    const id = (svc.db.prepare('SELECT id FROM assemblies').pluck().get() as number).toString();
    expect(r.stdout.split('\n')).toEqual([
      `created\t${id}\t${CORE}\t${join(release, 'App.Core.dll')}\t`,
      'created\t1',
      'updated\t0',
      'unchanged\t0',
      'failed\t0',
      '',
    ]);
  });

  it('--recursive: what is registered is unchanged, the plugin in a subfolder is created; a second run is all unchanged', async () => {
    const r = await lic(['assemblies', 'import', release, '-r', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ created: 1, unchanged: 2, failed: 0 });
    expect(registered().map((a) => `${a.name} ${a.culture}`)).toEqual(['App.Core ', 'App.Plugin de']);
    const from = proxy.seen.length;
    const again = await lic(['assemblies', 'import', release, '-r', '-o', 'json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: 0, unchanged: 3, failed: 0 });
    expect(writes(from)).toEqual([]);
  });

  it('one the service refuses fails alone with exit 1; the summary still prints', async () => {
    const dir = tempDir('lic-asm-bad-');
    // a name longer than the service takes (contract §9: 256 characters)
    writeFileSync(join(dir, 'long.dll'), buildAssembly({ name: 'L'.repeat(300), tables: { before: { 0: MODULE_ROW } } }));
    writeFileSync(join(dir, 'ok.dll'), buildAssembly({ name: 'Ok.Lib', version: [3, 0, 0, 0], tables: { before: { 0: MODULE_ROW } } }));
    const r = await lic(['assemblies', 'import', dir, '-o', 'json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ created: 1, failed: 1 });
    expect(report.items[0]).toMatchObject({ outcome: 'failed', source: join(dir, 'long.dll') });
    expect(r.stderr).toContain('1 of 2 assemblies failed');
  });

  it.each([
    { what: 'a path that does not exist', args: () => [join(root, 'nope')], message: `${join(root, 'nope')}: no such file` },
    { what: 'a folder without assemblies', args: () => [root], message: 'no .dll or .exe file in' },
  ])('$what is exit 2 with nothing sent', async ({ args, message }) => {
    const from = proxy.seen.length;
    const r = await lic(['assemblies', 'import', ...args()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(proxy.seen.length).toBe(from);
  });

  it('no path at all is exit 2 naming the argument', async () => {
    const r = await lic(['assemblies', 'import']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("missing required argument 'path'");
  });
});

describe('the built CLI, spawned', () => {
  it('exit 1 when one failed: the summary on stdout, the failure and the skipped file on stderr', async () => {
    const dir = tempDir('lic-asm-spawn-');
    writeFileSync(join(dir, 'a-long.dll'), buildAssembly({ name: 'M'.repeat(300), tables: { before: { 0: MODULE_ROW } } }));
    writeFileSync(join(dir, 'b-native.dll'), Buffer.from('MZ'));
    writeFileSync(
      join(dir, 'c-ok.dll'),
      buildAssembly({ name: 'Spawned.Ok', version: [1, 0, 0, 0], tables: { before: { 0: MODULE_ROW } } }),
    );
    const r = await spawnLic(['assemblies', 'import', dir], { env: envFor(svc, svc.adminKey) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('created\t1\nupdated\t0\nunchanged\t0\nfailed\t1\n');
    expect(r.stderr).toContain(`skipped ${join(dir, 'b-native.dll')}: not a .NET assembly`);
    expect(r.stderr).toContain(`${join(dir, 'a-long.dll')} (`);
    expect(r.stderr).toContain('lic: 1 of 2 assemblies failed (--details lists them)');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe.skipIf(!haveData)('assemblies import (real DLLs of the shared data)', () => {
  it('registers System.Xml.Linq and Mono.Cecil.Rocks with the identities their metadata give', async () => {
    const r = await lic(['assemblies', 'import', XML_LINQ, CECIL_ROCKS, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).items.map((i: { item: string }) => i.item)).toEqual([
      'System.Xml.Linq, Version=4.0.0.0, Culture=neutral, PublicKeyToken=b77a5c561934e089',
      'Mono.Cecil.Rocks, Version=0.9.5.0, Culture=neutral, PublicKeyToken=0738eb9f132ed756',
    ]);
    const list = await http(svc, 'GET', '/v1/assemblies?filter=Name%20%3D%20%22System.Xml.Linq%22', { key: svc.adminKey });
    expect(list.body.assemblies).toHaveLength(1);
  });
});

describe('options → the run function', () => {
  it.each<[string[], unknown]>([
    [['assemblies', 'import', 'bin'], { paths: ['bin'], recursive: undefined, details: undefined }],
    [['assemblies', 'import', 'a.dll', 'bin', '-r', '--details'], { paths: ['a.dll', 'bin'], recursive: true, details: true }],
    [['assemblies', 'import', 'bin', '--recursive', '--dry-run'], { paths: ['bin'], recursive: true, details: undefined }],
  ])('%j', async (argv, expected) => {
    expect(await parseVerb(argv)).toEqual({ opts: expected });
  });
});

describe('usage errors name the flag or argument', () => {
  it.each<[string[], string]>([
    [['assemblies', 'import'], "missing required argument 'path'"],
    [['assemblies', 'import', 'bin', '--recurse'], "unknown option '--recurse'"],
  ])('%j', async (argv, message) => {
    const r = await parseVerb(argv);
    expect(r.opts).toBeUndefined();
    expect(r.error).toContain(message);
  });
});
