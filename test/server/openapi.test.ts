import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { Code, INT32_MAX, TAKE_MAX } from '../../src/wire.js';
import { http } from '../helpers/service.js';
import { useService } from '../helpers/fixtures.js';

/** The parsed document: untyped on purpose, its shape is what these tests check. */
type Doc = any;

/** Every operation of the published API (spec, Endpoints) with its role list (spec; contract §3). */
const SPEC: { path: string; method: string; roles: string[] }[] = [
  { path: '/v1/api-keys', method: 'get', roles: ['Administrator'] },
  { path: '/v1/api-keys', method: 'post', roles: ['Administrator'] },
  { path: '/v1/api-keys', method: 'put', roles: ['Administrator'] },
  { path: '/v1/api-keys/{apiKeyId}', method: 'delete', roles: ['Administrator'] },
  ...['get', 'post', 'put'].map((method) => ({ path: '/v1/resources', method, roles: ['Administrator', 'LicenseManager', 'Sales'] })),
  { path: '/v1/resources/{resourceId}', method: 'delete', roles: ['Administrator', 'LicenseManager', 'Sales'] },
  ...['get', 'post', 'put'].map((method) => ({ path: '/v1/assemblies', method, roles: ['Administrator', 'LicenseManager'] })),
  { path: '/v1/assemblies/{assemblyId}', method: 'delete', roles: ['Administrator', 'LicenseManager'] },
  { path: '/v1/log', method: 'get', roles: ['Administrator', 'LicenseManager', 'Sales'] },
  { path: '/v1/log', method: 'delete', roles: ['Administrator'] },
  { path: '/v1/customers/{customerId}/orders', method: 'get', roles: ['Administrator', 'Sales'] },
  { path: '/v1/products/{productId}/releases/{releaseId}/license-templates', method: 'get', roles: ['Administrator', 'LicenseManager'] },
  { path: '/v1/customer/{customerCode}/products', method: 'get', roles: ['Customer'] },
];
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

let doc: Doc;
/** every (path, method, operation) of the document */
let ops: { path: string; method: string; op: Doc }[];

const { svc } = useService({ seed: 'demo' });
beforeAll(async () => {
  const r = await http(svc, 'GET', '/openapi.json');
  expect(r.status).toBe(200);
  doc = r.body;
  ops = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item as object)
      .filter(([m]) => METHODS.includes(m))
      .map(([method, op]) => ({ path, method, op })),
  );
});

describe('GET /openapi.json', () => {
  it('is public JSON: an OpenAPI 3.x document', async () => {
    const r = await http(svc, 'GET', '/openapi.json');
    expect(String(r.headers['content-type'])).toMatch(/^application\/json/);
    expect(typeof r.body).toBe('object');
    expect(r.body.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(typeof r.body.info.title).toBe('string');
    expect(typeof r.body.info.version).toBe('string');
    expect(ops.length).toBeGreaterThan(0);
    // a wrong key does not matter: the document needs none
    const bad = await http(svc, 'GET', '/openapi.json', { key: 'api_000000000000000000000000' });
    expect(bad.status).toBe(200);
  });

  it('declares the x-api-key header scheme, and every /v1 operation requires it', () => {
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    for (const { path, op } of ops.filter((o) => o.path.startsWith('/v1/'))) {
      expect(op.security, path).toEqual([{ apiKey: [] }]);
    }
  });

  it('lists every operation of the spec with its role list', () => {
    const missing = SPEC.filter((s) => !doc.paths[s.path]?.[s.method]).map((s) => `${s.method.toUpperCase()} ${s.path}`);
    expect(missing).toEqual([]);
    for (const s of SPEC) expect(doc.paths[s.path][s.method]['x-roles'], `${s.method} ${s.path}`).toEqual(s.roles);
  });

  it('documents only routes the service has, and not itself', () => {
    expect(doc.paths['/openapi.json']).toBeUndefined();
    for (const { path, method } of ops) {
      const url = path.replace(/\{(\w+)\}/g, ':$1');
      expect(svc.app.hasRoute({ method: method.toUpperCase() as 'GET', url }), `${method} ${path}`).toBe(true);
    }
  });

  it('declares each path parameter as required, ids as int32 1..2147483647', () => {
    for (const { path, op } of ops) {
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        const p = (op.parameters ?? []).find((x: Doc) => x.in === 'path' && x.name === name);
        expect(p, `${path} ${name}`).toBeDefined();
        expect(p.required).toBe(true);
        if (name!.endsWith('Id')) expect(p.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: INT32_MAX });
        else expect(p.schema.type).toBe('string');
      }
    }
  });

  it('declares the list query parameters (contract §5) on the list endpoints', () => {
    for (const path of [
      '/v1/api-keys',
      '/v1/log',
      '/v1/customers/{customerId}/orders',
      '/v1/products/{productId}/releases/{releaseId}/license-templates',
    ]) {
      const q = (doc.paths[path].get.parameters as Doc[]).filter((p) => p.in === 'query');
      expect(
        q.map((p) => p.name),
        path,
      ).toEqual(expect.arrayContaining(['select', 'filter', 'sort', 'take', 'skip']));
      expect(q.find((p) => p.name === 'take').schema).toMatchObject({ type: 'integer', maximum: TAKE_MAX });
    }
  });

  it('is generated from the validating schemas: every documented bound is enforced', async () => {
    let checked = 0;
    for (const { path, method, op } of ops.filter((o) => o.op['x-roles']?.includes('Administrator'))) {
      const params = (op.parameters ?? []) as Doc[];
      const ids = params.filter((p) => p.in === 'path' && p.schema.type === 'integer');
      for (const id of ids) {
        const url = path.replace(/\{(\w+)\}/g, (_, n: string) => (n === id.name ? String(id.schema.maximum + 1) : '1'));
        const r = await http(svc, method.toUpperCase(), url, { key: svc.adminKey });
        expect(r.status, `${method} ${url}`).toBe(400);
        expect(r.body.code).toBe(Code.INVALID_ARGUMENT);
        checked++;
      }
      const take = params.find((p) => p.in === 'query' && p.name === 'take');
      if (take && method === 'get') {
        const url = path.replace(/\{(\w+)\}/g, '1');
        const r = await http(svc, 'GET', `${url}?take=${take.schema.maximum + 1}`, { key: svc.adminKey });
        expect(r.status, `${url} take`).toBe(400);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(6);
  });

  it("the documented 200 schemas of orders, license templates and customer products accept the service's real replies", async () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    const customer = svc.issuedKeys.find((k) => k.role === 'Customer')!;
    const code = svc.db.prepare('SELECT customer_code FROM users WHERE id = ?').pluck().get(customer.userId) as string;
    const rel = svc.db.prepare('SELECT product_id AS p, id AS r FROM releases ORDER BY id DESC LIMIT 1').get() as { p: number; r: number };
    const cases: [string, string, string, string][] = [
      ['/v1/customers/{customerId}/orders', '/v1/customers/1/orders', svc.adminKey, 'orders'],
      [
        '/v1/products/{productId}/releases/{releaseId}/license-templates',
        `/v1/products/${rel.p}/releases/${rel.r}/license-templates`,
        svc.adminKey,
        'licenseTemplates',
      ],
      ['/v1/customer/{customerCode}/products', `/v1/customer/${code}/products`, customer.key, 'products'],
    ];
    for (const [docPath, url, key, array] of cases) {
      const schema = doc.paths[docPath].get.responses['200'].content['application/json'].schema;
      const r = await http(svc, 'GET', url, { key });
      expect(r.status).toBe(200);
      expect(r.body[array].length).toBeGreaterThan(0);
      const validate = ajv.compile({ ...schema, required: ['success', 'code', 'message', array] });
      expect(validate(r.body), JSON.stringify(validate.errors)).toBe(true);
      // each record carries exactly the documented fields
      const documented = Object.keys(schema.properties[array].items.properties).sort();
      for (const rec of r.body[array]) expect(Object.keys(rec).sort()).toEqual(documented);
    }
  });

  it('documents the failure envelope of contract §1', () => {
    const op = doc.paths['/v1/customers/{customerId}/orders'].get;
    // each status the contract lists for it, by number
    for (const status of ['400', '401', '403', '404', '429']) {
      const err = op.responses[status].content['application/json'].schema;
      expect(Object.keys(err.properties)).toEqual(expect.arrayContaining(['success', 'code', 'message', 'details']));
    }
  });
});

describe('lint', () => {
  it("passes Redocly's recommended rules with zero problems, warnings included", async () => {
    const { lintFromString, createConfig } = await import('@redocly/openapi-core');
    const r = await http(svc, 'GET', '/openapi.json');
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(r.body), absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} ${p.location?.[0]?.pointer ?? ''}`)).toEqual([]);
  });

  it('every operation has an operationId and a summary; the api-keys and log replies have their real shapes; unset timestamps are nullable date-times', () => {
    for (const { path, method, op } of ops) {
      expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary, `${method} ${path}`).toBeTruthy();
      for (const status of ['400', '401', '403', '429', '500']) expect(op.responses[status], `${method} ${path} ${status}`).toBeDefined();
    }
    const ok = (path: string, method: string) => doc.paths[path][method].responses['200'].content['application/json'].schema;
    expect(ok('/v1/api-keys', 'get').properties.apiKeys.items.properties.expireDate).toMatchObject({
      type: 'string',
      format: 'date-time',
      nullable: true,
    });
    expect(ok('/v1/api-keys', 'get').properties.apiKeys.items.properties.id).toMatchObject({ type: 'integer', minimum: 1 });
    expect(ok('/v1/api-keys', 'post').properties).toHaveProperty('apiKeyId');
    expect(ok('/v1/log', 'get').properties.logEntries.items.properties).toHaveProperty('messageTemplate');
    expect(ok('/v1/logs', 'get').properties).toHaveProperty('totalLogEntriesCount');
    expect(ok('/v1/log', 'delete').properties).toHaveProperty('deletedLogCount');
    const take = doc.paths['/v1/log'].get.parameters.find((p: { name: string }) => p.name === 'take');
    expect(take.schema).toMatchObject({ default: 100, maximum: 1000 });
  });
});
