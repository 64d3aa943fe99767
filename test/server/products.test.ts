import { beforeAll, describe, expect, it } from 'vitest';
import { Code, Permission, ROLES, type CustomerProduct, type Role } from '../../src/wire.js';
import { addUserWithKey, http } from '../helpers/service.js';
import { useService, PRODUCT_FIELDS } from '../helpers/fixtures.js';

interface Row {
  id: number;
  code: string;
  name: string;
  description: string;
  url: string;
  copyright: string;
  created_at: number;
  image: string;
  price: number;
  reseller_price: number;
  currency: string;
  signature_keys_id: number;
}

const keys = {} as Record<Role, { read: string; noRead: string }>;
/** the first two customers: `mine` is linked to the Customer users of the role matrix */
let mine: { id: number; code: string };
let other: { id: number; code: string };
const path = (code: string, q = '') => `/v1/customer/${encodeURIComponent(code)}/products${q}`;

/** The products linked to a customer, in the wire shape, written independently of the service. */
function productsOf(customerId: number): CustomerProduct[] {
  const rows = svc.db
    .prepare('SELECT p.* FROM customer_products cp JOIN products p ON p.id = cp.product_id WHERE cp.customer_id = ? ORDER BY p.id')
    .all(customerId) as Row[];
  return rows.map((r) => ({
    id: r.id,
    code: r.code,
    name: r.name,
    description: r.description,
    url: r.url,
    copyright: r.copyright,
    createdAt: new Date(r.created_at).toISOString(),
    image: r.image,
    price: r.price,
    resellerPrice: r.reseller_price,
    currency: r.currency,
    signatureKeysId: r.signature_keys_id,
  }));
}

const { svc } = useService({ seed: 'demo' });
beforeAll(async () => {
  [mine, other] = svc.db.prepare('SELECT id, code FROM customers ORDER BY id LIMIT 2').all() as { id: number; code: string }[] as [
    { id: number; code: string },
    { id: number; code: string },
  ];
  for (const role of ROLES) {
    const cc = role === 'Customer' ? mine.code : undefined;
    keys[role] = {
      read: await addUserWithKey(svc, `cp-${role}`, role, Permission.Read, cc),
      noRead: await addUserWithKey(svc, `cp-${role}`, role, Permission.Write | Permission.Delete, cc),
    };
  }
});

describe('GET /v1/customer/{customerCode}/products: roles and permission bits (contract §3)', () => {
  for (const role of ROLES) {
    const allowed = role === 'Customer';
    it(`${role} with Read → ${allowed ? '200' : '403'}`, async () => {
      const r = await http(svc, 'GET', path(mine.code), { key: keys[role].read });
      if (allowed) {
        expect(r.status).toBe(200);
        expect(r.body.products.length).toBeGreaterThan(0);
      } else {
        expect(r.status).toBe(403);
        expect(r.body).toMatchObject({ success: false, code: Code.PERMISSION_DENIED });
        expect(r.body.message).toContain('Customer');
        expect(r.body.products).toBeUndefined();
      }
    });
    it(`${role} without the Read bit → 403`, async () => {
      const r = await http(svc, 'GET', path(mine.code), { key: keys[role].noRead });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ success: false, code: Code.PERMISSION_DENIED });
    });
  }

  it('the seeded demo Customer key works for its own customer', async () => {
    const demo = svc.issuedKeys.find((k) => k.role === 'Customer')!;
    const code = svc.db.prepare('SELECT customer_code FROM users WHERE id = ?').pluck().get(demo.userId) as string;
    const r = await http(svc, 'GET', path(code), { key: demo.key });
    expect(r.status).toBe(200);
    expect(r.body.products.length).toBeGreaterThan(0);
  });
});

describe('GET /v1/customer/{customerCode}/products: own code only (contract §3, §8)', () => {
  it('own code → the linked products, envelope and `products` only: no total', async () => {
    const r = await http(svc, 'GET', path(mine.code), { key: keys.Customer.read });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['code', 'message', 'products', 'success']);
    const want = productsOf(mine.id);
    expect(want.length).toBeGreaterThan(0);
    expect(r.body.products).toEqual(want);
    for (const p of r.body.products as CustomerProduct[]) expect(Object.keys(p).sort()).toEqual([...PRODUCT_FIELDS].sort());
  });

  it('another existing code → 404, with the same message shape as an unknown code', async () => {
    const a = await http(svc, 'GET', path(other.code), { key: keys.Customer.read });
    const b = await http(svc, 'GET', path('C-ZZZZZZZZ'), { key: keys.Customer.read });
    expect(a.status).toBe(404);
    expect(b.status).toBe(404);
    expect(a.body).toMatchObject({ success: false, code: Code.NOT_FOUND });
    expect(a.body.products).toBeUndefined();
    expect(a.body.message.replace(other.code, 'X')).toBe(b.body.message.replace('C-ZZZZZZZZ', 'X'));
  });

  it('a Customer user of a different customer gets a 404 for this one, and its own products for its own', async () => {
    const key = await addUserWithKey(svc, 'cp-other-customer', 'Customer', Permission.Read, other.code);
    const r = await http(svc, 'GET', path(mine.code), { key });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe(Code.NOT_FOUND);
    const own = await http(svc, 'GET', path(other.code), { key });
    expect(own.status).toBe(200);
    expect(own.body.products).toEqual(productsOf(other.id));
  });

  it('a Customer user whose code names no customer → 404', async () => {
    const key = await addUserWithKey(svc, 'cp-orphan', 'Customer', Permission.Read, 'C-ORPHAN00');
    const r = await http(svc, 'GET', path('C-ORPHAN00'), { key });
    expect(r.status).toBe(404);
  });

  it('a customer without products → 200 with an empty list', async () => {
    svc.db.prepare("INSERT INTO customers (id, code, name, created_at) VALUES (9000, 'C-EMPTY000', 'No products', 0)").run();
    const key = await addUserWithKey(svc, 'cp-empty', 'Customer', Permission.Read, 'C-EMPTY000');
    const r = await http(svc, 'GET', path('C-EMPTY000'), { key });
    expect(r.status).toBe(200);
    expect(r.body.products).toEqual([]);
  });

  it('query parameters are not part of this endpoint → 400 naming the parameter', async () => {
    const r = await http(svc, 'GET', path(mine.code, '?take=1'), { key: keys.Customer.read });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(Code.INVALID_ARGUMENT);
    expect(r.body.message).toContain('take');
  });

  it('no key → 401', async () => {
    const r = await http(svc, 'GET', path(mine.code));
    expect(r.status).toBe(401);
  });
});
