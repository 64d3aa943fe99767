/** `/v1/resources` over raw HTTP: spec Resources; contract §1-§3, §7, §9. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { http, openStoredSecret } from '../helpers/service.js';
import { itChecksAccess } from '../helpers/access.js';
import { RESOURCES, query, recordsOf, useService } from '../helpers/fixtures.js';

let t = Date.parse('2025-01-18T12:00:00.000Z');
const { svc } = useService({ now: () => new Date(t) });

let seq = 0;
const unique = (prefix = 'res') => `${prefix}-${++seq}`;
const { post, put, list, get: getResource, create, count } = recordsOf(svc, RESOURCES, () => ({ name: unique() }));
/** The password as stored, opened with the test key: what the service keeps (sealed at rest) */
const storedPassword = (id: number) =>
  openStoredSecret(svc.db.prepare('SELECT password FROM resources WHERE id = ?').pluck().get(id) as string);

describe('roles and permission bits (contract §3)', () => {
  itChecksAccess({
    svc: () => svc,
    allowed: ['Administrator', 'LicenseManager', 'Sales'],
    userPrefix: 'u',
    customerCode: 'C-00000001',
    calls: [
      ['GET', 1, (key) => list('', key)],
      ['POST', 2, (key) => post({ name: unique('role') }, key)],
      ['PUT', 2, async (key) => put({ id: await create(), description: 'changed' }, key)],
      ['DELETE', 4, async (key) => http(svc, 'DELETE', `/v1/resources/${await create()}`, { key })],
    ],
  });

  it('no key is 401 code 16', async () => {
    const r = await http(svc, 'GET', '/v1/resources');
    expect(r.status).toBe(401);
    expect(r.body.code).toBe(16);
  });
});

describe('insert and list', () => {
  it('stores the bytes of data; lists them as base64 with timestamps from the clock and password ""', async () => {
    const bytes = randomBytes(300);
    const r = await post({
      name: 'key pair',
      type: 'RSA',
      code: 'kp-1',
      description: 'd',
      source: 's',
      password: 'hunter2',
      data: bytes.toString('base64'),
      dataFormat: 'SNK',
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, code: 0, message: 'OK', resourceId: expect.any(Number) });
    const rec = await getResource(r.body.resourceId);
    expect(rec).toEqual({
      id: r.body.resourceId,
      name: 'key pair',
      type: 'RSA',
      code: 'kp-1',
      description: 'd',
      source: 's',
      password: '',
      createdAt: '2025-01-18T12:00:00.000Z',
      updatedAt: '2025-01-18T12:00:00.000Z',
      data: bytes.toString('base64'),
      dataFormat: 'SNK',
      dataSize: 300,
    });
    const stored = svc.db.prepare('SELECT data, password FROM resources WHERE id = ?').get(r.body.resourceId) as {
      data: Buffer;
      password: string;
    };
    expect(Buffer.compare(stored.data, bytes)).toBe(0);
    expect(stored.password).toMatch(/^enc:v1:/);
    expect(openStoredSecret(stored.password)).toBe('hunter2');
  });

  it('only name is required: the rest default to "" and empty data', async () => {
    const id = await create();
    const rec = await getResource(id);
    expect(rec).toMatchObject({ type: '', code: '', description: '', source: '', data: '', dataFormat: '', dataSize: 0, password: '' });
  });

  it('ignores id, createdAt, updatedAt and dataSize sent on insert (set by the service)', async () => {
    const r = await post({ id: 999, name: unique(), createdAt: '2001-01-01T00:00:00Z', updatedAt: 'x', dataSize: 5 });
    expect(r.status).toBe(200);
    expect(r.body.resourceId).not.toBe(999);
    expect(await getResource(r.body.resourceId)).toMatchObject({ createdAt: '2025-01-18T12:00:00.000Z', dataSize: 0 });
  });

  it('accepts URL-safe base64 and base64 without padding (protobuf JSON bytes)', async () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xfe, 0x3e, 0x3f]);
    const std = bytes.toString('base64');
    expect(std).toMatch(/[+/]/);
    const urlSafe = std.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const a = await create({ data: urlSafe });
    expect((await getResource(a)).data).toBe(std);
  });

  it('password is never readable: always "", and neither filterable nor sortable', async () => {
    const id = await create({ password: 'p4ss' });
    const sel = await list(query({ select: 'Id, Password', filter: `Id = ${id}` }));
    expect(sel.body.resources).toEqual([{ id, password: '' }]);
    for (const [param, value] of [
      ['filter', 'Password = "p4ss"'],
      ['filter', 'Password.StartsWith("p")'],
      ['sort', 'Password'],
    ] as const) {
      const r = await list(query({ [param]: value }));
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(3);
      expect(r.body.message).toMatch(/password/i);
    }
    expect(JSON.stringify((await list()).body)).not.toContain('p4ss');
  });

  it('data can be selected but not filtered or sorted; dataSize can be filtered and sorted', async () => {
    const big = await create({ data: randomBytes(5000).toString('base64') });
    const sel = await list(query({ select: 'Id,DataSize', filter: `Id = ${big}` }));
    expect(sel.body.resources).toEqual([{ id: big, dataSize: 5000 }]);
    const onlyData = await list(query({ select: 'Data', filter: `Id = ${big}` }));
    expect(Buffer.from(onlyData.body.resources[0].data, 'base64').length).toBe(5000);
    expect(Object.keys(onlyData.body.resources[0])).toEqual(['data']);
    for (const [param, value] of [
      ['filter', 'Data = ""'],
      ['sort', 'Data desc'],
    ] as const) {
      const r = await list(query({ [param]: value }));
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/data/i);
    }
    const bySize = await list(query({ filter: 'DataSize >= 5000', sort: 'DataSize desc', select: 'Id' }));
    expect(bySize.body.resources[0]).toEqual({ id: big });
  });

  it('takes select/filter/sort/take/skip with the total counting all matches', async () => {
    for (let i = 0; i < 3; i++) await create({ type: 'paging-test' });
    const all = await list(query({ filter: 'Type = "paging-test"', sort: 'Id desc' }));
    expect(all.body.totalResourcesCount).toBe(3);
    const page = await list(query({ filter: 'Type = "paging-test"', sort: 'Id desc', take: 1, skip: 1, select: 'Id,Name' }));
    expect(page.body.totalResourcesCount).toBe(3);
    expect(page.body.resources).toEqual([{ id: all.body.resources[1].id, name: all.body.resources[1].name }]);
    expect((await list(query({ take: 1001 }))).status).toBe(400);
    expect((await list(query({ sort: 'Nope' }))).body.message).toContain('Nope');
  });

  it.each([
    [{ type: 'RSA' }, 'resource.name is required'],
    [{ name: '' }, 'resource.name must NOT have fewer than 1 characters'],
    [{ name: 'x'.repeat(257) }, 'resource.name must NOT have more than 256 characters'],
    [{ name: 'ok', code: 'c'.repeat(257) }, 'resource.code must NOT have more than 256 characters'],
    [{ name: 'ok', type: 7 }, 'resource.type must be string'],
    [{ name: 'ok', data: 'not base64!' }, 'resource.data must be base64'],
    [{ name: 'ok', data: 'abcde' }, 'resource.data must be base64'],
    [{ name: 'ok', data: 'ab=c' }, 'resource.data must be base64'],
    [{ name: 'ok', data: 'abc==' }, 'resource.data must be base64'],
    [{ name: 'ok', data: 12 }, 'resource.data must be string'],
    [{ name: 'ok', secret: 1 }, 'resource.secret is not a known field'],
  ])('%j is 400 code 3: %s', async (resource, message) => {
    const before = await count();
    const r = await post(resource);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: 3 });
    expect(r.body.message).toContain(message);
    expect(r.body.details[0].field).toBe(message.split(' ')[0]);
    expect(await count()).toBe(before);
  });

  it('a body without the resource wrapper is a 400 naming it', async () => {
    const r = await http(svc, 'POST', '/v1/resources', { key: svc.adminKey, body: { name: 'x' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('resource');
  });

  it('a taken name, or a taken non-empty code, is 409 code 6 naming the field; empty codes may repeat', async () => {
    const name = unique('dup');
    await create({ name, code: `${name}-code` });
    const byName = await post({ name });
    expect(byName.status).toBe(409);
    expect(byName.body).toMatchObject({ success: false, code: 6, details: [{ field: 'resource.name' }] });
    expect(byName.body.message).toContain(`resource.name "${name}"`);
    const byCode = await post({ name: unique('dup'), code: `${name}-code` });
    expect(byCode.status).toBe(409);
    expect(byCode.body).toMatchObject({ code: 6, details: [{ field: 'resource.code' }] });
    await create({ code: '' });
    await create({ code: '' });
  });
});

describe('update', () => {
  it('changes only the fields present, bumps updatedAt, keeps createdAt', async () => {
    const id = await create({
      type: 'email',
      description: 'before',
      data: Buffer.from('<p>hi</p>').toString('base64'),
      dataFormat: 'html',
    });
    t += 60_000;
    try {
      const r = await put({ id, description: 'after' });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ success: true, code: 0, message: 'OK' });
      const rec = await getResource(id);
      expect(rec).toMatchObject({
        type: 'email',
        description: 'after',
        dataFormat: 'html',
        createdAt: '2025-01-18T12:00:00.000Z',
        updatedAt: '2025-01-18T12:01:00.000Z',
      });
      expect(Buffer.from(rec.data, 'base64').toString()).toBe('<p>hi</p>');
    } finally {
      t -= 60_000;
    }
  });

  it('replaces data with new bytes; "" empties it', async () => {
    const id = await create({ data: 'AAAA' });
    await put({ id, data: Buffer.from('new').toString('base64') });
    expect(Buffer.from((await getResource(id)).data, 'base64').toString()).toBe('new');
    await put({ id, data: '' });
    expect((await getResource(id)).dataSize).toBe(0);
  });

  it('sets a password; a record sent back as read (password "") keeps it', async () => {
    const id = await create({ password: 'first' });
    await put({ id, password: 'second' });
    expect(storedPassword(id)).toBe('second');
    const rec = await getResource(id);
    expect(rec.password).toBe('');
    const r = await put({ ...rec, description: 'round trip' });
    expect(r.status).toBe(200);
    expect(storedPassword(id)).toBe('second');
    expect((await getResource(id)).description).toBe('round trip');
  });

  it('an unknown id is 404 code 5; ids out of int32 range or missing are 400', async () => {
    const r = await put({ id: 2147483647, description: 'x' });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false, code: 5, message: 'no resource with id 2147483647' });
    for (const [body, field] of [
      [{ id: 0 }, 'resource.id'],
      [{ id: 2147483648 }, 'resource.id'],
      [{ id: -1 }, 'resource.id'],
      [{ name: 'x' }, 'resource.id'],
      [{ id: '3' }, 'resource.id'],
    ] as const) {
      const bad = await put(body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.code).toBe(3);
      expect(bad.body.message).toContain(field);
    }
  });

  it('bad fields are 400 naming them, and nothing changes', async () => {
    const id = await create({ description: 'keep' });
    for (const [body, field] of [
      [{ id, data: '***' }, 'resource.data'],
      [{ id, name: '' }, 'resource.name'],
      [{ id, description: 'x'.repeat(4097) }, 'resource.description'],
      [{ id, description: 'y', bogus: true }, 'resource.bogus'],
    ] as const) {
      const r = await put(body);
      expect(r.status).toBe(400);
      expect(r.body.message).toContain(field);
    }
    expect((await getResource(id)).description).toBe('keep');
  });

  it('renaming onto a taken name or code is 409; keeping its own is fine', async () => {
    const a = unique('ren');
    await create({ name: a, code: `${a}-c` });
    const id = await create();
    expect((await put({ id, name: a })).body).toMatchObject({ code: 6, details: [{ field: 'resource.name' }] });
    expect((await put({ id, code: `${a}-c` })).body).toMatchObject({ code: 6, details: [{ field: 'resource.code' }] });
    const self = await getResource(id);
    expect((await put({ id, name: self.name, code: self.code })).status).toBe(200);
  });
});

describe('delete', () => {
  it('deletes by id; a second delete is 404', async () => {
    const id = await create();
    const r = await http(svc, 'DELETE', `/v1/resources/${id}`, { key: svc.adminKey });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, code: 0, message: 'OK' });
    expect(await getResource(id)).toBeUndefined();
    const again = await http(svc, 'DELETE', `/v1/resources/${id}`, { key: svc.adminKey });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: 5, message: `no resource with id ${id}` });
  });

  it.each(['0', '-1', '2147483648', 'abc', '1.5'])('id %s is 400 code 3', async (id) => {
    const r = await http(svc, 'DELETE', `/v1/resources/${id}`, { key: svc.adminKey });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(3);
    expect(r.body.message).toContain('resourceId');
  });
});

describe('audit (contract §6)', () => {
  it('each write gets one Information entry with the record id, never the data or the password', async () => {
    const secret = 'Pa55-unique-7f3a';
    const payload = Buffer.from('DATA-MARKER-91c2 '.repeat(4));
    const before = svc.db.prepare('SELECT max(id) FROM log').pluck().get() as number;
    const id = await create({ password: secret, data: payload.toString('base64') });
    expect((await put({ id, password: `${secret}-2`, data: payload.toString('base64') })).status).toBe(200);
    expect((await http(svc, 'DELETE', `/v1/resources/${id}`, { key: svc.adminKey })).status).toBe(200);
    const rows = svc.db.prepare('SELECT level, message, properties FROM log WHERE id > ? ORDER BY id').all(before) as {
      level: string;
      message: string;
      properties: string;
    }[];
    const props = rows.map((r) => JSON.parse(r.properties));
    expect(props.map((p) => [p.Method, p.Path, p.RecordId])).toEqual([
      ['POST', '/v1/resources', id],
      ['PUT', '/v1/resources', id],
      ['DELETE', `/v1/resources/${id}`, id],
    ]);
    expect(rows.every((r) => r.level === 'Information')).toBe(true);
    expect(props[1].Changed).toEqual(['password', 'data']);
    const text = JSON.stringify(rows);
    for (const s of [secret, 'DATA-MARKER', payload.toString('base64')]) expect(text).not.toContain(s);
  });

  it('a failed write writes no audit entry', async () => {
    const before = svc.db.prepare('SELECT count(*) FROM log').pluck().get();
    await put({ id: 2147483000, description: 'x' });
    expect(svc.db.prepare('SELECT count(*) FROM log').pluck().get()).toBe(before);
  });
});
