/** `/v1/assemblies` over raw HTTP: spec Assemblies; contract §1-§3, §7. */
import { describe, expect, it } from 'vitest';
import { http } from '../helpers/service.js';
import { itChecksAccess } from '../helpers/access.js';
import { ASSEMBLIES, query, recordsOf, useService } from '../helpers/fixtures.js';

const { svc } = useService();

let seq = 0;
const unique = (prefix = 'Asm') => `${prefix}.N${++seq}`;
const { post, put, list, get: getAssembly, create, count } = recordsOf(svc, ASSEMBLIES, () => ({ name: unique(), version: '1.0.0.0' }));
async function createResource(): Promise<number> {
  const r = await http(svc, 'POST', '/v1/resources', {
    key: svc.adminKey,
    body: { resource: { name: `map-${++seq}`, type: 'MappingFile' } },
  });
  expect(r.status).toBe(200);
  return r.body.resourceId;
}

describe('roles and permission bits (contract §3)', () => {
  itChecksAccess({
    svc: () => svc,
    allowed: ['Administrator', 'LicenseManager'],
    userPrefix: 'a',
    customerCode: 'C-00000002',
    calls: [
      ['GET', 1, (key) => list('', key)],
      ['POST', 2, (key) => post({ name: unique('Role') }, key)],
      ['PUT', 2, async (key) => put({ id: await create(), debugSymbolsKey: 'k' }, key)],
      ['DELETE', 4, async (key) => http(svc, 'DELETE', `/v1/assemblies/${await create()}`, { key })],
    ],
  });
});

describe('insert and list', () => {
  it('stores an identity; lists every Assembly field', async () => {
    const map = await createResource();
    // every field in its canonical form, so the stored record reads back as sent
    const sent = {
      name: 'System.Xml.Linq',
      version: '4.0.0.0',
      culture: '',
      publicKeyToken: 'b77a5c561934e089',
      mappingFileId: map,
      debugSymbolsKey: 'pdb/key',
    };
    const r = await post(sent);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, code: 0, message: 'OK', assemblyId: expect.any(Number) });
    expect(await getAssembly(r.body.assemblyId)).toEqual({ id: r.body.assemblyId, ...sent });
  });

  it('normalises: token lowercase, version without leading zeros, culture "neutral" stored as ""', async () => {
    const id = await create({ version: '04.00.010.0', culture: 'Neutral', publicKeyToken: 'B77A5C561934E089' });
    expect(await getAssembly(id)).toMatchObject({ version: '4.0.10.0', culture: '', publicKeyToken: 'b77a5c561934e089', mappingFileId: 0 });
  });

  it('only name is required', async () => {
    const r = await post({ name: unique() });
    expect(r.status).toBe(200);
    expect(await getAssembly(r.body.assemblyId)).toMatchObject({
      version: '',
      culture: '',
      publicKeyToken: '',
      mappingFileId: 0,
      debugSymbolsKey: '',
    });
  });

  it('takes select/filter/sort/take/skip (rule 3)', async () => {
    const name = unique('Paging');
    for (const v of ['1.0.0.0', '2.0.0.0', '3.0.0.0']) await create({ name, version: v });
    const r = await list(query({ filter: `Name = "${name}"`, sort: 'Version desc', take: 2, skip: 1, select: 'Version' }));
    expect(r.body).toMatchObject({ totalAssembliesCount: 3, assemblies: [{ version: '2.0.0.0' }, { version: '1.0.0.0' }] });
    expect(Object.keys(r.body.assemblies[0])).toEqual(['version']);
    expect((await list(query({ filter: 'PublicKeyToken.StartsWith(' }))).status).toBe(400);
    expect((await list(query({ take: -1 }))).status).toBe(400);
  });

  it.each([
    [{ version: '1.0.0.0' }, 'assembly.name'],
    [{ name: '' }, 'assembly.name'],
    [{ name: 'x'.repeat(257) }, 'assembly.name'],
    [{ name: 'A', version: '1.2.3' }, 'assembly.version'],
    [{ name: 'A', version: '1.2.3.65536' }, 'assembly.version'],
    [{ name: 'A', version: 'a.b.c.d' }, 'assembly.version'],
    [{ name: 'A', version: '1.2.3.4.5' }, 'assembly.version'],
    [{ name: 'A', version: 1 }, 'assembly.version'],
    [{ name: 'A', publicKeyToken: 'b77a5c561934e08' }, 'assembly.publicKeyToken'],
    [{ name: 'A', publicKeyToken: 'b77a5c561934e089a' }, 'assembly.publicKeyToken'],
    [{ name: 'A', publicKeyToken: 'g77a5c561934e089' }, 'assembly.publicKeyToken'],
    [{ name: 'A', culture: 'en US' }, 'assembly.culture'],
    [{ name: 'A', mappingFileId: -1 }, 'assembly.mappingFileId'],
    [{ name: 'A', mappingFileId: 2147483648 }, 'assembly.mappingFileId'],
    [{ name: 'A', mappingFileId: '1' }, 'assembly.mappingFileId'],
    [{ name: 'A', mappingFileId: 2147483647 }, 'assembly.mappingFileId'],
    [{ name: 'A', extra: 1 }, 'assembly.extra'],
  ])('%j is 400 code 3 naming %s', async (assembly, field) => {
    const before = await count();
    const r = await post(assembly);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: 3 });
    expect(r.body.message).toContain(field);
    expect(r.body.details?.[0]?.field).toBe(field);
    expect(await count()).toBe(before);
  });

  it('a duplicate identity (name, version, culture, token) is 409 code 6; any difference is a new assembly', async () => {
    const name = unique('Dup');
    await create({ name, version: '1.0.0.0', culture: 'de', publicKeyToken: '0738eb9f132ed756' });
    const dup = await post({ name, version: '1.0.0.0', culture: 'de', publicKeyToken: '0738EB9F132ED756' });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ success: false, code: 6 });
    expect(dup.body.message).toContain(name);
    for (const other of [{ version: '1.0.0.1' }, { culture: 'fr' }, { publicKeyToken: '' }]) {
      expect((await post({ name, version: '1.0.0.0', culture: 'de', publicKeyToken: '0738eb9f132ed756', ...other })).status).toBe(200);
    }
    // neutral and "" are the same culture
    await create({ name, version: '2.0.0.0', culture: '' });
    expect((await post({ name, version: '2.0.0.0', culture: 'neutral' })).status).toBe(409);
  });
});

describe('update', () => {
  it('changes only the fields present', async () => {
    const map = await createResource();
    const id = await create({ culture: 'de', publicKeyToken: 'b77a5c561934e089', debugSymbolsKey: 'keep' });
    const r = await put({ id, version: '1.1.0.0', mappingFileId: map });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, code: 0, message: 'OK' });
    expect(await getAssembly(id)).toMatchObject({
      version: '1.1.0.0',
      culture: 'de',
      publicKeyToken: 'b77a5c561934e089',
      mappingFileId: map,
      debugSymbolsKey: 'keep',
    });
    await put({ id, mappingFileId: 0 });
    expect((await getAssembly(id)).mappingFileId).toBe(0);
  });

  it('an unknown id is 404 code 5; bad ids are 400', async () => {
    const r = await put({ id: 2147483647, name: 'x' });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 5, message: 'no assembly with id 2147483647' });
    for (const body of [{ id: 0 }, { id: 2147483648 }, { name: 'x' }, { id: 1.5 }]) {
      const bad = await put(body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.message).toContain('assembly.id');
    }
  });

  it('validates fields like insert, and a mapping file that is not a resource, changing nothing', async () => {
    const id = await create({ debugSymbolsKey: 'keep' });
    for (const [body, field] of [
      [{ id, version: '1' }, 'assembly.version'],
      [{ id, publicKeyToken: 'xyz' }, 'assembly.publicKeyToken'],
      [{ id, mappingFileId: 2147483647, debugSymbolsKey: 'new' }, 'assembly.mappingFileId'],
      [{ id, name: '' }, 'assembly.name'],
    ] as const) {
      const r = await put(body);
      expect(r.status).toBe(400);
      expect(r.body.details[0].field).toBe(field);
    }
    expect((await getAssembly(id)).debugSymbolsKey).toBe('keep');
  });

  it('an update that makes a duplicate identity is 409; updating to its own identity is fine', async () => {
    const name = unique('UpDup');
    await create({ name, version: '1.0.0.0' });
    const id = await create({ name, version: '2.0.0.0' });
    const r = await put({ id, version: '1.0.0.0' });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe(6);
    expect((await put({ id, name, version: '2.0.0.0' })).status).toBe(200);
  });
});

describe('delete', () => {
  it('deletes by id; a second delete is 404', async () => {
    const id = await create();
    expect((await http(svc, 'DELETE', `/v1/assemblies/${id}`, { key: svc.adminKey })).status).toBe(200);
    expect(await getAssembly(id)).toBeUndefined();
    const again = await http(svc, 'DELETE', `/v1/assemblies/${id}`, { key: svc.adminKey });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: 5, message: `no assembly with id ${id}` });
  });

  it.each(['0', '-3', '2147483648', 'x'])('id %s is 400 code 3', async (id) => {
    const r = await http(svc, 'DELETE', `/v1/assemblies/${id}`, { key: svc.adminKey });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(3);
    expect(r.body.message).toContain('assemblyId');
  });
});

describe('audit (contract §6)', () => {
  it('each write gets one Information entry with the record id', async () => {
    const before = svc.db.prepare('SELECT max(id) FROM log').pluck().get() as number;
    const id = await create();
    await put({ id, culture: 'de' });
    await http(svc, 'DELETE', `/v1/assemblies/${id}`, { key: svc.adminKey });
    const props = (svc.db.prepare('SELECT properties FROM log WHERE id > ? ORDER BY id').pluck().all(before) as string[]).map((p) =>
      JSON.parse(p),
    );
    expect(props.map((p) => [p.Method, p.Path, p.RecordId])).toEqual([
      ['POST', '/v1/assemblies', id],
      ['PUT', '/v1/assemblies', id],
      ['DELETE', `/v1/assemblies/${id}`, id],
    ]);
    expect(props[1].Changed).toEqual(['culture']);
  });
});
