/** `lic assemblies update ID` in-process against the real service on port 0: only the flags given, --from-dll, --mapping-file-id 0. */
import { SHARED_DATA } from '../../helpers/shared-data.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { http } from '../../helpers/service.js';
import { useService } from '../../helpers/fixtures.js';
import { assemblySteps } from './steps.js';
import { useDryRun } from '../../helpers/dry-run.js';

const DATA = SHARED_DATA;
const XML_LINQ = join(DATA, 'System.Xml.Linq.dll');
const CECIL_ROCKS = join(DATA, 'Mono.Cecil.Rocks.dll');
const haveData = existsSync(XML_LINQ) && existsSync(CECIL_ROCKS);
if (!haveData) console.warn(`SKIPPED: --from-dll on real assemblies needs ${DATA} (System.Xml.Linq.dll, Mono.Cecil.Rocks.dll)`);

const { svc, env } = useService();
const { dryRun } = useDryRun(svc);
const { unique, getAssembly, createVia } = assemblySteps(svc, env, tempDir('lic-asm-'));

describe.skipIf(!haveData)('--from-dll on real assemblies', () => {
  it('update --from-dll sends the identity read from the file', async () => {
    const id = await createVia(['--name', unique('Old'), '--assembly-version', '1.0.0.0']);
    svc.db.prepare("DELETE FROM assemblies WHERE name = 'Mono.Cecil.Rocks' AND id <> ?").run(id);
    const r = await runCli(['assemblies', 'update', String(id), '--from-dll', CECIL_ROCKS, '--debug-symbols-key', 'k'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(await getAssembly(id)).toMatchObject({
      name: 'Mono.Cecil.Rocks',
      version: '0.9.5.0',
      culture: '',
      publicKeyToken: '0738eb9f132ed756',
      debugSymbolsKey: 'k',
    });
  });
});

describe('update and delete', () => {
  it('update sends only the flags given; nothing given is a usage error; an unknown id is exit 4', async () => {
    const name = unique('Upd');
    const id = await createVia(['--name', name, '--assembly-version', '1.0.0.0', '--public-key-token', '0738eb9f132ed756']);
    // on a terminal (stderr), where the success note is shown
    const r = await runCli(['assemblies', 'update', String(id), '--culture', 'de'], { env, stderrTTY: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Updated assembly ${id}.`);
    expect(await getAssembly(id)).toMatchObject({ name, version: '1.0.0.0', culture: 'de', publicKeyToken: '0738eb9f132ed756' });
    const none = await runCli(['assemblies', 'update', String(id)], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('nothing to change');
    const missing = await runCli(['assemblies', 'update', '2147483647', '--culture', 'de'], { env });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('no assembly with id 2147483647');
    const badId = await runCli(['assemblies', 'update', '0', '--culture', 'de'], { env });
    expect(badId.code).toBe(2);
  });

  it('--mapping-file-id 0 clears the mapping file', async () => {
    const res = await http(svc, 'POST', '/v1/resources', {
      key: svc.adminKey,
      body: { resource: { name: unique('m'), type: 'MappingFile' } },
    });
    const id = await createVia(['--name', unique('Map'), '--mapping-file-id', String(res.body.resourceId)]);
    expect((await getAssembly(id)).mappingFileId).toBe(res.body.resourceId);
    expect((await runCli(['assemblies', 'update', String(id), '--mapping-file-id', '0'], { env })).code).toBe(0);
    expect((await getAssembly(id)).mappingFileId).toBe(0);
  });
});

describe('update --dry-run', () => {
  it('prints the PUT it would send and stops there', async () => {
    const asm = await http(svc, 'POST', '/v1/assemblies', {
      key: svc.adminKey,
      body: { assembly: { name: 'DryLib', version: '1.0.0.0' } },
    });
    const aid = asm.body.assemblyId;
    expect((await dryRun(['assemblies', 'update', String(aid), '--mapping-file-id', '0', '--dry-run'])).plan).toMatchObject({
      method: 'PUT',
      body: { assembly: { id: aid } },
    });
  });
});
