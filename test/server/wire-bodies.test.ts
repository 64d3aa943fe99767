/**
 * Bodies at the edges: empty bodies where none is expected, prototype
 * keys, bytes that are not UTF-8, unknown top-level fields, and what an insert ignores.
 * Raw bytes go through node:http so nothing re-encodes them on the way.
 */
import { request as rawRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { http } from '../helpers/service.js';
import { useService } from '../helpers/fixtures.js';

const { svc } = useService();

/** One request with exactly these body bytes and headers. */
function send(method: string, path: string, body: Buffer, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const u = new URL(svc.url + path);
    const req = rawRequest(
      {
        host: u.hostname,
        port: u.port,
        method,
        path: u.pathname + u.search,
        headers: { 'x-api-key': svc.adminKey, 'content-length': String(body.length), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const json = { 'content-type': 'application/json' };

describe('empty bodies', () => {
  it('DELETE and GET with content-type application/json and no body are served', async () => {
    const made = await http(svc, 'POST', '/v1/assemblies', {
      key: svc.adminKey,
      body: { assembly: { name: 'EmptyBody', version: '1.0.0.0' } },
    });
    const del = await send('DELETE', `/v1/assemblies/${made.body.assemblyId}`, Buffer.alloc(0), json);
    expect(del).toMatchObject({ status: 200, body: { success: true } });
    expect((await send('GET', '/v1/assemblies?take=1', Buffer.alloc(0), json)).status).toBe(200);
  });

  it('POST with an empty JSON body is still a 400 saying so', async () => {
    const r = await send('POST', '/v1/assemblies', Buffer.alloc(0), json);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('request body is empty; expected a JSON object');
  });
});

describe('hostile keys and bytes', () => {
  it('a __proto__ key is a 400 that says so, not "not valid JSON"', async () => {
    for (const body of [
      '{"assembly":{"name":"x","__proto__":{"admin":true}}}',
      '{"__proto__":{"x":1},"assembly":{"name":"x"}}',
      '{"assembly":{"name":"x","constructor":{"prototype":{"x":1}}}}',
    ]) {
      const r = await send('POST', '/v1/assemblies', Buffer.from(body), json);
      expect(r.status, body).toBe(400);
      expect(r.body.code).toBe(3);
      expect(r.body.message).toBe('request body has a "__proto__" or "constructor.prototype" key, which is not allowed');
    }
  });

  it('bytes that are not UTF-8 are a 400 naming the field, and nothing is stored', async () => {
    const before = svc.db.prepare('SELECT count(*) FROM resources').pluck().get();
    const body = Buffer.concat([Buffer.from('{"resource":{"name":"ok","description":"caf'), Buffer.from([0xe9]), Buffer.from('"}}')]);
    const r = await send('POST', '/v1/resources', body, json);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('resource.description is not valid UTF-8');
    expect(r.body.details).toEqual([{ field: 'resource.description', reason: 'not valid UTF-8' }]);
    expect(svc.db.prepare('SELECT count(*) FROM resources').pluck().get()).toBe(before);
    // a real U+FFFD, correctly encoded, is just a character
    const ok = await send('POST', '/v1/resources', Buffer.from('{"resource":{"name":"fffd \uFFFD"}}'), json);
    expect(ok.status).toBe(200);
  });
});

describe('escaped lone surrogates: a 400 naming the field, before anything is stored', () => {
  // every write that takes a body, and every string field of its record
  const WRITES = [
    {
      path: '/v1/api-keys',
      wrap: 'apiKey',
      table: 'api_keys',
      base: { permissions: 1 },
      fields: ['name', 'description', 'ownerId', 'expireDate'],
    },
    {
      path: '/v1/resources',
      wrap: 'resource',
      table: 'resources',
      base: { name: 'base' },
      fields: ['name', 'type', 'code', 'description', 'source', 'password', 'dataFormat'],
    },
    {
      path: '/v1/assemblies',
      wrap: 'assembly',
      table: 'assemblies',
      base: { name: 'base', version: '1.0.0.0' },
      fields: ['name', 'version', 'culture', 'publicKeyToken', 'debugSymbolsKey'],
    },
  ];
  const snapshot = (table: string) => JSON.stringify(svc.db.prepare(`SELECT * FROM ${table} ORDER BY id`).all());
  const logCount = () => svc.db.prepare('SELECT count(*) FROM log').pluck().get();

  it.each(WRITES)('$path: POST and PUT, every string field, high and low halves alone', async (w) => {
    const made = await http(svc, 'POST', w.path, { key: svc.adminKey, body: { [w.wrap]: { ...w.base, name: `target-${w.wrap}` } } });
    expect(made.status).toBe(200);
    const id = made.body[`${w.wrap}Id`] as number;
    for (const field of w.fields) {
      for (const lone of ['\\ud800x', 'x\\udfff', '\\uDBFF', '\\ude00\\ud83d']) {
        for (const method of ['POST', 'PUT']) {
          const before = snapshot(w.table);
          const logBefore = logCount();
          // the JSON text holds the escape itself, as a client that writes JSON by hand (or a fuzzer) sends it
          const rec = `{"${w.wrap}":{${method === 'PUT' ? `"id":${id},` : ''}${JSON.stringify(w.base).slice(1, -1)},"${field}":"${lone}"}}`;
          const r = await send(method, w.path, Buffer.from(rec), json);
          expect(r.status, `${method} ${field} ${lone}`).toBe(400);
          expect(r.body).toEqual({
            success: false,
            code: 3,
            message: `${w.wrap}.${field} is not valid Unicode: it holds an unpaired surrogate (a \\uD800-\\uDFFF escape without its other half)`,
            details: [
              {
                field: `${w.wrap}.${field}`,
                reason: 'not valid Unicode: it holds an unpaired surrogate (a \\uD800-\\uDFFF escape without its other half)',
              },
            ],
          });
          expect(snapshot(w.table)).toBe(before);
          expect(logCount()).toBe(logBefore);
        }
      }
    }
  });

  it('in a key, nested, or as the whole body; a surrogate pair written as escapes is a character like any other', async () => {
    for (const [body, field] of [
      ['{"resource":{"name":"n","\\ud800":1}}', 'resource.\ud800'],
      ['{"resource":{"name":"n"},"x":["\\udc00"]}', 'x.0'],
      ['"\\ud800"', 'request body'],
    ] as const) {
      const r = await send('POST', '/v1/resources', Buffer.from(body), json);
      expect(r.status, body).toBe(400);
      expect(r.body.details[0].field).toBe(field);
    }
    const pair = await send('POST', '/v1/resources', Buffer.from('{"resource":{"name":"smile \\ud83d\\ude00"}}'), json);
    expect(pair.status).toBe(200);
    const stored = svc.db.prepare('SELECT name, hex(name) AS bytes FROM resources WHERE id = ?').get(pair.body.resourceId) as {
      name: string;
      bytes: string;
    };
    expect(stored).toEqual({ name: 'smile \u{1F600}', bytes: Buffer.from('smile \u{1F600}').toString('hex').toUpperCase() });
    // a backslash before "u": no escape at all
    const literal = await send('POST', '/v1/resources', Buffer.from('{"resource":{"name":"\\\\ud800"}}'), json);
    expect(literal.status).toBe(200);
  });
});

describe('/v1/api-keys bodies', () => {
  it('unknown top-level fields are refused like on every other body', async () => {
    const r = await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { permissions: 1 }, extra: 1 } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('extra is not a known field');
    const u = await http(svc, 'PUT', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { id: 1, name: 'x' }, extra: 1 } });
    expect(u.status).toBe(400);
  });

  it('an insert ignores an id and takes no revoked (a key is born usable)', async () => {
    const r = await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { id: 999, permissions: 1 } } });
    expect(r.status).toBe(200);
    expect(r.body.apiKeyId).not.toBe(999);
    const revoked = await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { permissions: 1, revoked: true } } });
    expect(revoked.status).toBe(400);
    expect(revoked.body.message).toBe('apiKey.revoked is not a known field');
  });
});
