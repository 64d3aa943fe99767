/**
 * Access matrix: every endpoint × the four roles × permission masks 0..7, and
 * × {no key, unknown, revoked, expired}. The expected status comes from contract §3 (role
 * list of the endpoint, permission bit of the method), never from the service's code.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { addUserWithKey, http } from '../helpers/service.js';
import { histogram, recordFigures } from './figures.js';
import { useService } from '../helpers/fixtures.js';

type Role = 'Administrator' | 'LicenseManager' | 'Sales' | 'Customer';
const ROLES: Role[] = ['Administrator', 'LicenseManager', 'Sales', 'Customer'];
const BIT = { GET: 1, POST: 2, PUT: 2, DELETE: 4 } as const;
const MISSING = 2_147_483_000;

interface Endpoint {
  method: keyof typeof BIT;
  path: () => string;
  body?: () => unknown;
  roles: Role[];
  /** the status when the call is allowed (a harmless request: a missing id is 404) */
  allowed: number;
}

let customerId = 0;
let customerCode = '';
let product = 0;
let release = 0;
let n = 0;
const uniq = () => `matrix-${++n}`;

const A: Role[] = ['Administrator'];
const ALS: Role[] = ['Administrator', 'LicenseManager', 'Sales'];
const AL: Role[] = ['Administrator', 'LicenseManager'];
const ENDPOINTS: Endpoint[] = [
  { method: 'GET', path: () => '/v1/api-keys?take=0', roles: A, allowed: 200 },
  { method: 'POST', path: () => '/v1/api-keys', body: () => ({ apiKey: { name: uniq(), permissions: 0 } }), roles: A, allowed: 200 },
  { method: 'PUT', path: () => '/v1/api-keys', body: () => ({ apiKey: { id: MISSING, name: 'x' } }), roles: A, allowed: 404 },
  { method: 'DELETE', path: () => `/v1/api-keys/${MISSING}`, roles: A, allowed: 404 },
  { method: 'GET', path: () => '/v1/resources?take=0', roles: ALS, allowed: 200 },
  { method: 'POST', path: () => '/v1/resources', body: () => ({ resource: { name: uniq() } }), roles: ALS, allowed: 200 },
  { method: 'PUT', path: () => '/v1/resources', body: () => ({ resource: { id: MISSING, name: 'x' } }), roles: ALS, allowed: 404 },
  { method: 'DELETE', path: () => `/v1/resources/${MISSING}`, roles: ALS, allowed: 404 },
  { method: 'GET', path: () => '/v1/assemblies?take=0', roles: AL, allowed: 200 },
  {
    method: 'POST',
    path: () => '/v1/assemblies',
    body: () => ({ assembly: { name: uniq(), version: '1.0.0.0' } }),
    roles: AL,
    allowed: 200,
  },
  { method: 'PUT', path: () => '/v1/assemblies', body: () => ({ assembly: { id: MISSING, name: 'x' } }), roles: AL, allowed: 404 },
  { method: 'DELETE', path: () => `/v1/assemblies/${MISSING}`, roles: AL, allowed: 404 },
  { method: 'GET', path: () => '/v1/log?take=0', roles: ALS, allowed: 200 },
  { method: 'GET', path: () => '/v1/logs?take=0', roles: ALS, allowed: 200 },
  { method: 'DELETE', path: () => `/v1/log?id=${MISSING}`, roles: A, allowed: 200 },
  { method: 'GET', path: () => `/v1/customers/${customerId}/orders?take=0`, roles: ['Administrator', 'Sales'], allowed: 200 },
  { method: 'GET', path: () => `/v1/products/${product}/releases/${release}/license-templates?take=0`, roles: AL, allowed: 200 },
  { method: 'GET', path: () => `/v1/customer/${customerCode}/products`, roles: ['Customer'], allowed: 200 },
];

/** keys[role][mask] */
const keys = {} as Record<Role, string[]>;
const invalid: Record<string, string | undefined> = {};

const { svc } = useService({ seed: 'demo' });
beforeAll(async () => {
  const cust = svc.db
    .prepare("SELECT c.id, c.code FROM users u JOIN customers c ON c.code = u.customer_code WHERE u.role = 'Customer' LIMIT 1")
    .get() as { id: number; code: string };
  customerId = cust.id;
  customerCode = cust.code;
  const t = svc.db.prepare('SELECT product_id, release_id FROM license_templates LIMIT 1').get() as {
    product_id: number;
    release_id: number;
  };
  product = t.product_id;
  release = t.release_id;
  for (const role of ROLES) {
    keys[role] = [];
    for (let mask = 0; mask < 8; mask++)
      keys[role].push(await addUserWithKey(svc, `matrix-${role}`, role, mask, role === 'Customer' ? customerCode : undefined));
  }
  invalid['no key'] = undefined;
  invalid['unknown key'] = 'api_000000000000000000000000';
  const revoked = await addUserWithKey(svc, 'matrix-revoked', 'Administrator', 7);
  svc.db.prepare('UPDATE api_keys SET revoked = 1 WHERE key_prefix = ?').run(revoked.slice(0, 8));
  invalid['revoked key'] = revoked;
  const expired = await addUserWithKey(svc, 'matrix-expired', 'Administrator', 7);
  svc.db.prepare('UPDATE api_keys SET expire_date = ? WHERE key_prefix = ?').run(Date.now() - 1000, expired.slice(0, 8));
  invalid['expired key'] = expired;
});

describe('access matrix', () => {
  it('every endpoint × role × mask, and every invalid key: the status contract §3 says', async () => {
    const statuses: number[] = [];
    const wrong: string[] = [];
    const t0 = performance.now();
    for (const e of ENDPOINTS) {
      for (const role of ROLES) {
        for (let mask = 0; mask < 8; mask++) {
          const expected = !e.roles.includes(role) || (mask & BIT[e.method]) === 0 ? 403 : e.allowed;
          const r = await http(svc, e.method, e.path(), { key: keys[role][mask], body: e.body?.() });
          statuses.push(r.status);
          if (r.status !== expected) wrong.push(`${e.method} ${e.path()} as ${role}/${mask}: ${r.status}, expected ${expected}`);
          if (r.status >= 400) expect(r.body).toMatchObject({ success: false, code: r.status === 403 ? 7 : 5 });
        }
      }
      for (const [what, key] of Object.entries(invalid)) {
        const r = await http(svc, e.method, e.path(), { key, body: e.body?.() });
        statuses.push(r.status);
        if (r.status !== 401) wrong.push(`${e.method} ${e.path()} with ${what}: ${r.status}, expected 401`);
        else expect(r.body.code).toBe(16);
      }
    }
    const ms = performance.now() - t0;
    expect(wrong).toEqual([]);
    expect(statuses).toHaveLength(ENDPOINTS.length * (ROLES.length * 8 + 4));
    const h = histogram(statuses);
    recordFigures('access-matrix', 'Access matrix: endpoints × roles × permission masks × invalid keys', {
      endpoints: ENDPOINTS.length,
      cases: statuses.length,
      'as contract §3 says': statuses.length - wrong.length,
      ...Object.fromEntries(Object.entries(h).map(([s, c]) => [`HTTP ${s}`, c])),
      'duration (s)': (ms / 1000).toFixed(1),
    });
  });
});
