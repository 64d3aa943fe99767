import { beforeAll, describe, expect, it } from 'vitest';
import { Code, INT32_MAX, Permission, ROLES, type Order, type Role } from '../../src/wire.js';
import { addUserWithKey, http } from '../helpers/service.js';
import { useService, ORDER_FIELDS } from '../helpers/fixtures.js';

const RFC3339_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface OrderRow {
  id: number;
  order_number: string;
  status: string;
  processed_by: string;
  purchase_order: string;
  total: number;
  currency: string;
  created_at: number;
  updated_at: number;
  invoice_number: string;
  payment_type: string;
  payment_number: string;
  payment_status: string;
  payment_date: number | null;
  description: string;
  customer_id: number;
  reseller_id: number;
  created_by_id: string;
}

/** The wire form of a stored order, written independently of the service's mapping (contract §2). */
function expected(r: OrderRow): Order {
  return {
    id: r.id,
    orderNumber: r.order_number,
    status: r.status,
    processedBy: r.processed_by,
    purchaseOrder: r.purchase_order,
    total: r.total,
    currency: r.currency,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
    invoiceNumber: r.invoice_number,
    paymentType: r.payment_type,
    paymentNumber: r.payment_number,
    paymentStatus: r.payment_status,
    paymentDate: r.payment_date === null ? null : new Date(r.payment_date).toISOString(),
    description: r.description,
    customerId: r.customer_id,
    resellerId: r.reseller_id,
    createdById: r.created_by_id,
  };
}

/** per role: a key with only Read, and one with every bit but Read */
const keys = {} as Record<Role, { read: string; noRead: string }>;
let busiest: number;
const path = (id: number | string, q = '') => `/v1/customers/${id}/orders${q}`;
const rows = (sql: string, ...p: unknown[]) => svc.db.prepare(sql).all(...p) as OrderRow[];

const { svc } = useService({ seed: 'demo' });
beforeAll(async () => {
  const code = svc.db.prepare('SELECT code FROM customers ORDER BY id LIMIT 1').pluck().get() as string;
  for (const role of ROLES) {
    const cc = role === 'Customer' ? code : undefined;
    keys[role] = {
      read: await addUserWithKey(svc, `orders-${role}`, role, Permission.Read, cc),
      noRead: await addUserWithKey(svc, `orders-${role}`, role, Permission.Write | Permission.Delete, cc),
    };
  }
  busiest = svc.db
    .prepare('SELECT customer_id FROM orders GROUP BY customer_id ORDER BY count(*) DESC, customer_id LIMIT 1')
    .pluck()
    .get() as number;
});

describe('GET /v1/customers/{customerId}/orders: roles and permission bits (contract §3)', () => {
  for (const role of ROLES) {
    const allowed = role === 'Administrator' || role === 'Sales';
    it(`${role} with Read → ${allowed ? '200' : '403'}`, async () => {
      const r = await http(svc, 'GET', path(busiest), { key: keys[role].read });
      if (allowed) {
        expect(r.status).toBe(200);
        expect(r.body).toMatchObject({ success: true, code: 0, message: 'OK' });
        expect(r.body.orders.length).toBeGreaterThan(0);
      } else {
        expect(r.status).toBe(403);
        expect(r.body).toMatchObject({ success: false, code: Code.PERMISSION_DENIED });
        expect(r.body.message).toContain(`role ${role}`);
        expect(r.body.orders).toBeUndefined();
      }
    });
    it(`${role} without the Read bit → 403`, async () => {
      const r = await http(svc, 'GET', path(busiest), { key: keys[role].noRead });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ success: false, code: Code.PERMISSION_DENIED });
      if (allowed) expect(r.body.message).toContain('Read (1)');
    });
  }

  it('no key → 401 code 16', async () => {
    const r = await http(svc, 'GET', path(busiest));
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ success: false, code: Code.UNAUTHENTICATED });
  });
});

describe('GET /v1/customers/{customerId}/orders: records', () => {
  it('lists exactly the orders of that customer, in id order, each in the spec shape', async () => {
    const r = await http(svc, 'GET', path(busiest), { key: svc.adminKey });
    expect(r.status).toBe(200);
    const want = rows('SELECT * FROM orders WHERE customer_id = ? ORDER BY id', busiest).map(expected);
    expect(want.length).toBeGreaterThan(5);
    expect(r.body.totalOrdersCount).toBe(want.length);
    expect(r.body.orders).toEqual(want);
    for (const o of r.body.orders as Order[]) {
      expect(Object.keys(o).sort()).toEqual([...ORDER_FIELDS].sort());
      expect(o.createdAt).toMatch(RFC3339_Z);
      expect(o.updatedAt).toMatch(RFC3339_Z);
      expect(typeof o.total).toBe('number');
    }
  });

  it('paymentDate is null (never "") for an unpaid order and RFC 3339 for a paid one', async () => {
    const unpaid = rows('SELECT * FROM orders WHERE payment_date IS NULL LIMIT 1')[0]!;
    const paid = rows('SELECT * FROM orders WHERE payment_date IS NOT NULL LIMIT 1')[0]!;
    const a = await http(svc, 'GET', path(unpaid.customer_id, `?filter=${encodeURIComponent(`Id = ${unpaid.id}`)}`), { key: svc.adminKey });
    expect(a.body.orders).toHaveLength(1);
    expect(a.body.orders[0].paymentDate).toBeNull();
    const b = await http(svc, 'GET', path(paid.customer_id, `?filter=${encodeURIComponent(`Id = ${paid.id}`)}`), { key: svc.adminKey });
    expect(b.body.orders[0].paymentDate).toMatch(RFC3339_Z);
    expect(Date.parse(b.body.orders[0].paymentDate)).toBe(paid.payment_date);
  });

  it('a customer without orders → 200 with an empty list and total 0', async () => {
    const id = (svc.db.prepare('SELECT max(id) FROM customers').pluck().get() as number) + 1;
    svc.db.prepare("INSERT INTO customers (id, code, name, created_at) VALUES (?, 'C-NOORDERS', 'No orders', 0)").run(id);
    const r = await http(svc, 'GET', path(id), { key: svc.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.orders).toEqual([]);
    expect(r.body.totalOrdersCount).toBe(0);
  });
});

describe('GET /v1/customers/{customerId}/orders: bad input and unknown customers (contract §1, §2, §8)', () => {
  it('unknown customer → 404 code 5 naming the id', async () => {
    const id = (svc.db.prepare('SELECT max(id) FROM customers').pluck().get() as number) + 1000;
    const r = await http(svc, 'GET', path(id), { key: svc.adminKey });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false, code: Code.NOT_FOUND });
    expect(r.body.message).toContain(String(id));
  });

  for (const bad of ['0', '-1', String(INT32_MAX + 1), '99999999999999999999', 'abc', '1.5']) {
    it(`customerId ${bad} → 400 code 3`, async () => {
      const r = await http(svc, 'GET', path(bad), { key: svc.adminKey });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, code: Code.INVALID_ARGUMENT });
      expect(r.body.message).toContain('customerId');
    });
  }

  it('customerId 2147483647 (the int32 maximum) is a valid id: 404, not 400', async () => {
    const r = await http(svc, 'GET', path(INT32_MAX), { key: svc.adminKey });
    expect(r.status).toBe(404);
  });

  it('a filter with a syntax error → 400 naming the position', async () => {
    const r = await http(svc, 'GET', path(busiest, `?filter=${encodeURIComponent('Status = ')}`), { key: svc.adminKey });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(Code.INVALID_ARGUMENT);
    expect(r.body.message).toMatch(/position 9/);
  });

  it('a filter on an unknown field → 400 naming the field, its position and the fields', async () => {
    const r = await http(svc, 'GET', path(busiest, `?filter=${encodeURIComponent('Color = "red"')}`), { key: svc.adminKey });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/Color.*position 0/);
    expect(r.body.message).toContain('paymentStatus');
  });

  it('a type mismatch → 400 with the position of the literal', async () => {
    const r = await http(svc, 'GET', path(busiest, `?filter=${encodeURIComponent('Total > "a lot"')}`), { key: svc.adminKey });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/position 8/);
  });

  it('unknown sort field and take over 1000 → 400', async () => {
    const s = await http(svc, 'GET', path(busiest, '?sort=Color'), { key: svc.adminKey });
    expect(s.status).toBe(400);
    expect(s.body.message).toContain('Color');
    const t = await http(svc, 'GET', path(busiest, '?take=1001'), { key: svc.adminKey });
    expect(t.status).toBe(400);
    expect(t.body.message).toContain('take');
  });
});

describe('GET /v1/customers/{customerId}/orders: filter, sort, select, take, skip (contract §5)', () => {
  const get = (q: Record<string, string | number>) =>
    http(svc, 'GET', path(busiest, `?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]))}`), { key: svc.adminKey });

  it('Status = "Pending" gives exactly the pending orders', async () => {
    const pending = svc.db
      .prepare("SELECT customer_id FROM orders WHERE status = 'Pending' GROUP BY customer_id ORDER BY count(*) DESC LIMIT 1")
      .pluck()
      .get() as number;
    const r = await http(svc, 'GET', path(pending, `?filter=${encodeURIComponent('Status = "Pending"')}`), { key: svc.adminKey });
    expect(r.status).toBe(200);
    const want = rows("SELECT * FROM orders WHERE customer_id = ? AND status = 'Pending' ORDER BY id", pending).map(expected);
    expect(want.length).toBeGreaterThan(0);
    expect(r.body.orders).toEqual(want);
    expect(r.body.totalOrdersCount).toBe(want.length);
  });

  it('Total > 100 with sort Total desc: the matching orders, largest first', async () => {
    const r = await get({ filter: 'Total > 100', sort: 'Total desc' });
    expect(r.status).toBe(200);
    const want = rows('SELECT * FROM orders WHERE customer_id = ? AND total > 100 ORDER BY total DESC, id', busiest).map(expected);
    expect(want.length).toBeGreaterThan(0);
    expect(r.body.orders).toEqual(want);
    const totals = (r.body.orders as Order[]).map((o) => o.total);
    expect(totals).toEqual([...totals].sort((a, b) => b - a));
  });

  it('a timestamp filter compares as a time; string methods and logic work', async () => {
    const cutoff = svc.db
      .prepare('SELECT created_at FROM orders WHERE customer_id = ? ORDER BY created_at LIMIT 1 OFFSET 3')
      .pluck()
      .get(busiest) as number;
    const iso = new Date(cutoff).toISOString();
    const r = await get({ filter: `CreatedAt >= "${iso}" and (PaymentType = "CreditCard" or OrderNumber.StartsWith("ORD-"))` });
    expect(r.status).toBe(200);
    const want = rows(
      "SELECT * FROM orders WHERE customer_id = ? AND created_at >= ? AND (payment_type = 'CreditCard' OR order_number LIKE 'ORD-%') ORDER BY id",
      busiest,
      cutoff,
    ).map(expected);
    expect(r.body.orders).toEqual(want);
  });

  it('select Id, Total returns records with only those fields', async () => {
    const r = await get({ select: 'Id, Total' });
    expect(r.status).toBe(200);
    const want = rows('SELECT * FROM orders WHERE customer_id = ? ORDER BY id', busiest).map((o) => ({ id: o.id, total: o.total }));
    expect(r.body.orders).toEqual(want);
  });

  it('take/skip return a page; the total counts every match', async () => {
    const all = rows('SELECT * FROM orders WHERE customer_id = ? ORDER BY id', busiest).map(expected);
    const r = await get({ take: 3, skip: 2 });
    expect(r.body.orders).toEqual(all.slice(2, 5));
    expect(r.body.totalOrdersCount).toBe(all.length);
    const none = await get({ take: 0 });
    expect(none.body.orders).toEqual([]);
    expect(none.body.totalOrdersCount).toBe(all.length);
  });

  it('the filter never reaches another customer: orders are scoped to the path id', async () => {
    const other = svc.db.prepare('SELECT customer_id FROM orders WHERE customer_id <> ? LIMIT 1').pluck().get(busiest) as number;
    const r = await get({ filter: `CustomerId = ${other} or true` });
    expect(r.status).toBe(200);
    expect((r.body.orders as Order[]).every((o) => o.customerId === busiest)).toBe(true);
  });
});
