/**
 * `lic assemblies create` in-process against the real service on port 0: --from-dll on real
 * assemblies and on files that are not, flags over what the DLL says, the identity from
 * flags and their checks, the reply. The signing-key check of --from-dll is
 * create.signing-key.test.ts.
 */
import { SHARED_DATA } from '../../helpers/shared-data.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { http } from '../../helpers/service.js';
import { NotAnAssemblyError, readAssemblyIdentity } from '../../../src/dotnet/assembly-identity.js';
import { useService } from '../../helpers/fixtures.js';
import { assemblySteps, NOWHERE } from './steps.js';
import { useDryRun } from '../../helpers/dry-run.js';

const DATA = SHARED_DATA;
const XML_LINQ = join(DATA, 'System.Xml.Linq.dll');
const CECIL_ROCKS = join(DATA, 'Mono.Cecil.Rocks.dll');
const haveData = existsSync(XML_LINQ) && existsSync(CECIL_ROCKS);
if (!haveData) console.warn(`SKIPPED: --from-dll on real assemblies needs ${DATA} (System.Xml.Linq.dll, Mono.Cecil.Rocks.dll)`);

const dir = tempDir('lic-asm-');
const { svc, env } = useService();
const { proxy, dryRun } = useDryRun(svc);
const { unique, count, getAssembly, createVia, file } = assemblySteps(svc, env, dir);

/** The reason readAssemblyIdentity gives for `bytes`. */
function reasonFor(bytes: Buffer): string {
  try {
    readAssemblyIdentity(bytes);
  } catch (e) {
    if (e instanceof NotAnAssemblyError) return e.message;
    throw e;
  }
  throw new Error('expected NotAnAssemblyError');
}

describe.skipIf(!haveData)('--from-dll on real assemblies', () => {
  it.each([
    [XML_LINQ, { name: 'System.Xml.Linq', version: '4.0.0.0', culture: '', publicKeyToken: 'b77a5c561934e089' }],
    [CECIL_ROCKS, { name: 'Mono.Cecil.Rocks', version: '0.9.5.0', culture: '', publicKeyToken: '0738eb9f132ed756' }],
  ])('%s creates a record with its identity (culture neutral)', async (path, identity) => {
    svc.db.prepare('DELETE FROM assemblies WHERE name = ?').run(identity.name);
    const r = await runCli(['assemblies', 'create', '--from-dll', path], { env });
    expect(r.code, r.stderr).toBe(0);
    const fields = Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')),
    );
    expect(fields).toMatchObject({
      name: identity.name,
      version: identity.version,
      culture: 'neutral',
      publicKeyToken: identity.publicKeyToken,
    });
    const id = Number(fields.id);
    expect(await getAssembly(id)).toEqual({ id, ...identity, mappingFileId: 0, debugSymbolsKey: '' });
    const list = await runCli(['assemblies', 'list', '--take', '1000'], { env });
    const row = list.stdout.split('\n').find((l) => l.startsWith(`${id}\t`));
    expect(row).toBe([id, identity.name, identity.version, 'neutral', identity.publicKeyToken, ''].join('\t'));
    // the same DLL again is the same identity: 409 from the service, exit 1
    const dup = await runCli(['assemblies', 'create', '--from-dll', path], { env });
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain('already exists');
    expect(dup.stderr).toContain('HTTP 409, code 6');
  });

  it('flags override what the DLL says', async () => {
    const res = await http(svc, 'POST', '/v1/resources', {
      key: svc.adminKey,
      body: { resource: { name: unique('map'), type: 'MappingFile' } },
    });
    const id = await createVia([
      '--from-dll',
      XML_LINQ,
      '--name',
      'Renamed.Linq',
      '--assembly-version',
      '4.1.2.3',
      '--culture',
      'de',
      '--mapping-file-id',
      String(res.body.resourceId),
      '--debug-symbols-key',
      'pdb-key',
    ]);
    expect(await getAssembly(id)).toEqual({
      id,
      name: 'Renamed.Linq',
      version: '4.1.2.3',
      culture: 'de',
      publicKeyToken: 'b77a5c561934e089',
      mappingFileId: res.body.resourceId,
      debugSymbolsKey: 'pdb-key',
    });
    const noToken = await createVia(['--from-dll', CECIL_ROCKS, '--public-key-token', 'null', '--name', unique('Rocks')]);
    expect(await getAssembly(noToken)).toMatchObject({ version: '0.9.5.0', publicKeyToken: '' });
  });

  it('a truncated DLL is exit 2 naming the file and the reader’s reason', async () => {
    const bytes = readFileSync(XML_LINQ);
    for (const n of [1024, 4096, bytes.length - 20000]) {
      const cut = bytes.subarray(0, n);
      const p = file(`truncated-${n}.dll`, cut);
      const before = count();
      const r = await runCli(['assemblies', 'create', '--from-dll', p], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--from-dll ${p}: not a .NET assembly: ${reasonFor(cut)}`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(count()).toBe(before);
    }
  });
});

describe('--from-dll on files that are not assemblies (generated here)', () => {
  const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(120)]);
  // a DOS header whose e_lfanew points past the end
  const mzOnly = Buffer.alloc(64);
  mzOnly.write('MZ', 0, 'latin1');
  mzOnly.writeUInt32LE(0x80, 0x3c);
  it.each([
    ['notes.txt', Buffer.from('just some text\n')],
    ['elf.so', elf],
    ['mz-only.dll', mzOnly],
    ['empty.dll', Buffer.alloc(0)],
  ])('%s is exit 2 with the reason, nothing sent', async (name, bytes) => {
    const p = file(name, bytes);
    const before = count();
    const r = await runCli(['assemblies', 'create', '--from-dll', p], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--from-dll ${p}: not a .NET assembly: ${reasonFor(bytes)}`);
    expect(count()).toBe(before);
    expect((await runCli(['assemblies', 'create', '--from-dll', p], { env: NOWHERE })).code).toBe(2);
  });

  it('a missing file or a directory is exit 2 naming --from-dll', async () => {
    const missing = await runCli(['assemblies', 'create', '--from-dll', join(dir, 'nope.dll')], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--from-dll ${join(dir, 'nope.dll')}: no such file`);
    const d = await runCli(['assemblies', 'create', '--from-dll', dir], { env });
    expect(d.code).toBe(2);
    expect(d.stderr).toContain('is a directory');
  });
});

describe('create from flags', () => {
  it('stores the identity given; the token is sent lowercase, "neutral" as ""', async () => {
    const name = unique('Flags');
    const id = await createVia([
      '--name',
      name,
      '--assembly-version',
      '2.0.0.1',
      '--culture',
      'neutral',
      '--public-key-token',
      'B77A5C561934E089',
    ]);
    expect(await getAssembly(id)).toEqual({
      id,
      name,
      version: '2.0.0.1',
      culture: '',
      publicKeyToken: 'b77a5c561934e089',
      mappingFileId: 0,
      debugSymbolsKey: '',
    });
  });

  it('without --from-dll, --name is required', async () => {
    const r = await runCli(['assemblies', 'create', '--assembly-version', '1.0.0.0'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--name is required');
  });

  it.each([
    ['--public-key-token', '123', 'expected 16 hex digits'],
    ['--public-key-token', 'b77a5c561934e08g', 'expected 16 hex digits'],
    ['--assembly-version', '1.2.3', 'expected a version a.b.c.d'],
    ['--assembly-version', '1.2.3.70000', 'expected a version a.b.c.d'],
    ['--culture', 'en US', 'expected a culture name'],
    ['--mapping-file-id', '-1', 'expected a resource id'],
    ['--mapping-file-id', '2147483648', 'expected a resource id'],
    ['--mapping-file-id', 'x', 'expected a resource id'],
    ['--name', '', 'expected 1..256 characters'],
  ])('%s %j is a usage error naming the flag, before any request', async (flag, value, message) => {
    const before = count();
    const r = await runCli(['assemblies', 'create', '--name', 'X', flag, value], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(flag);
    expect(r.stderr).toContain(message);
    expect(count()).toBe(before);
    expect((await runCli(['assemblies', 'create', '--name', 'X', flag, value], { env: NOWHERE })).code).toBe(2);
  });

  it('a mapping file id that is not a resource is refused by the service (exit 1, naming the field)', async () => {
    const r = await runCli(['assemblies', 'create', '--name', unique(), '--mapping-file-id', '2147483647'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('assembly.mappingFileId 2147483647 is not the id of a resource');
  });

  it('-o json prints the server body unchanged', async () => {
    const r = await runCli(['assemblies', 'create', '--name', unique(), '-o', 'json'], { env });
    expect(Object.keys(JSON.parse(r.stdout)).sort()).toEqual(['assemblyId', 'code', 'message', 'success']);
    const list = await runCli(['assemblies', 'list', '-o', 'json', '--take', '5', '--skip', '1'], { env });
    const direct = await http(svc, 'GET', '/v1/assemblies?take=5&skip=1', { key: svc.adminKey });
    expect(JSON.parse(list.stdout)).toEqual(direct.body);
  });
});

describe('create --dry-run', () => {
  it('prints the POST it would send and stops there: no assembly made', async () => {
    const before = (await http(svc, 'GET', '/v1/assemblies', { key: svc.adminKey })).body.assemblies.length;
    expect((await dryRun(['assemblies', 'create', '--name', 'DryOther', '--version', '2.0.0.0', '--dry-run'])).plan).toMatchObject({
      method: 'POST',
      url: `${proxy.url}/v1/assemblies`,
    });
    expect((await http(svc, 'GET', '/v1/assemblies', { key: svc.adminKey })).body.assemblies).toHaveLength(before);
  });
});
