import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src/server/db.js';
import { parseDataset, type Dataset } from '../../../src/server/seed/dataset.js';
import { buildDemoDataset } from '../../../src/server/seed/demo.js';
import { isDatabaseEmpty, loadDataset, type LoadOptions } from '../../../src/server/seed/load.js';

const NOW = new Date('2025-06-01T12:00:00.000Z');
const TABLES = [
  'users',
  'api_keys',
  'log',
  'resources',
  'assemblies',
  'customers',
  'products',
  'releases',
  'license_templates',
  'customer_products',
  'orders',
] as const;

const sha256 = (k: string): string => createHash('sha256').update(k).digest('hex');
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const generateKey = (): string => 'api_' + [...randomBytes(24)].map((b) => ALPHABET[b % 36]).join('');
const opts: LoadOptions = { now: NOW, hashKey: sha256, generateKey };

function counts(db: Db): Record<string, number> {
  return Object.fromEntries(TABLES.map((t) => [t, (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]));
}

describe('loadDataset', () => {
  it('loads the demo dataset with the expected row counts', () => {
    const d = buildDemoDataset(NOW);
    const db = openDatabase(':memory:');
    expect(isDatabaseEmpty(db)).toBe(true);
    const { keys } = loadDataset(db, d, opts);
    expect(isDatabaseEmpty(db)).toBe(false);
    expect(counts(db)).toEqual({
      users: d.users.length,
      api_keys: d.apiKeys!.length,
      log: d.log!.length,
      resources: d.resources!.length,
      assemblies: d.assemblies!.length,
      customers: d.customers!.length,
      products: d.products!.length,
      releases: d.releases!.length,
      license_templates: d.licenseTemplates!.length,
      customer_products: d.customerProducts!.length,
      orders: d.orders!.length,
    });
    expect(counts(db)).toMatchObject({ users: 4, api_keys: 4, log: 3000, customers: 20, products: 5, orders: 300 });
    expect(db.pragma('foreign_key_check')).toEqual([]);

    expect(keys.map((k) => k.role)).toEqual(['Administrator', 'LicenseManager', 'Sales', 'Customer']);
    for (const k of keys) {
      expect(k.key).toMatch(/^api_[a-z0-9]{24}$/);
      const row = db.prepare('SELECT * FROM api_keys WHERE id = ?').get(k.id) as Record<string, unknown>;
      expect(row).toMatchObject({
        owner_id: k.userId,
        name: k.name,
        permissions: 7,
        key_prefix: k.key.slice(0, 8),
        key_hash: sha256(k.key),
        created_at: NOW.getTime(),
        expire_date: null,
        revoked: 0,
      });
      expect(JSON.stringify(row)).not.toContain(k.key);
    }
    db.close();
  });

  it('maps fields to columns: ms timestamps, NULL for empty, 0/1, BLOB, JSON text', () => {
    const d = buildDemoDataset(NOW);
    const db = openDatabase(':memory:');
    loadDataset(db, d, opts);

    const c = d.customers![4]!;
    expect(db.prepare('SELECT * FROM customers WHERE id = ?').get(c.id)).toEqual({
      id: c.id,
      code: c.code,
      name: c.name,
      email: c.email,
      country: c.country,
      created_at: Date.parse(c.createdAt),
    });

    const unpaid = d.orders!.find((o) => o.paymentDate === '')!;
    const paid = d.orders!.find((o) => o.paymentDate !== '')!;
    const row = (id: number): Record<string, unknown> => db.prepare('SELECT * FROM orders WHERE id = ?').get(id) as Record<string, unknown>;
    expect(row(unpaid.id).payment_date).toBeNull();
    expect(row(paid.id)).toMatchObject({
      order_number: paid.orderNumber,
      payment_date: Date.parse(paid.paymentDate!),
      created_at: Date.parse(paid.createdAt),
      updated_at: Date.parse(paid.updatedAt),
      total: paid.total,
      customer_id: paid.customerId,
      reseller_id: paid.resellerId,
      created_by_id: paid.createdById,
    });

    const key = db.prepare("SELECT * FROM resources WHERE type = 'RSA'").get() as { data: Buffer; created_at: number; data_format: string };
    expect(Buffer.isBuffer(key.data)).toBe(true);
    expect(key.data).toHaveLength(596);
    expect(key.data.subarray(8, 12).toString('ascii')).toBe('RSA2');
    expect(key.data_format).toBe('SNK');

    const t = d.licenseTemplates!.find((x) => x.generateKeyInfo)!;
    const trow = db.prepare('SELECT * FROM license_templates WHERE id = ?').get(t.id) as Record<string, string | number>;
    expect(trow.generate_key_info).toBe(1);
    expect(trow.template).toBe(t.template);
    expect(trow.license_file_name).toBe(t.licenseFileName);
    expect(JSON.parse(trow.features as string)).toEqual(t.features);
    expect(JSON.parse(trow.restrictions as string)).toEqual(t.restrictions);
    expect(JSON.parse(trow.assemblies as string)).toEqual(t.assemblies);
    expect(JSON.parse(trow.components as string)).toEqual(t.components);
    expect(JSON.parse(trow.fields as string)).toEqual(t.fields);

    const firstLog = db.prepare('SELECT * FROM log ORDER BY id LIMIT 1').get() as Record<string, unknown>;
    expect(firstLog).toMatchObject({
      id: 1,
      time_stamp: Date.parse(d.log![0]!.timeStamp),
      level: d.log![0]!.level,
      message: d.log![0]!.message,
    });

    const cu = db.prepare("SELECT * FROM users WHERE role = 'Customer'").get() as Record<string, unknown>;
    expect(cu.customer_code).toBe(d.users.find((u) => u.role === 'Customer')!.customerCode);
    expect(
      (db.prepare("SELECT customer_code FROM users WHERE role = 'Administrator'").get() as { customer_code: unknown }).customer_code,
    ).toBeNull();
    db.close();
  });

  it('installs given keys as-is, applies expiry/revocation, assigns missing resource ids after explicit ones', () => {
    const d = parseDataset({
      users: [{ id: 'u1', name: 'U', email: 'u@example.com', role: 'Sales' }],
      apiKeys: [
        {
          ownerId: 'u1',
          name: 'fixed',
          permissions: 1,
          key: 'api_abcdefghijklmnopqrstuvwx',
          expireDate: '2026-01-01T00:00:00Z',
          revoked: true,
        },
        { ownerId: 'u1', name: 'generated', permissions: 3 },
      ],
      resources: [
        {
          name: 'no id',
          type: 'email',
          code: '',
          description: '',
          source: '',
          password: '',
          data: Buffer.from('<p>é</p>').toString('base64'),
          dataFormat: 'html',
        },
        {
          id: 1,
          name: 'one',
          type: 'x',
          code: 'c1',
          description: '',
          source: '',
          password: 'secret',
          createdAt: '2024-01-01T00:00:00Z',
          updatedAt: '2024-02-01T00:00:00Z',
          data: '',
          dataFormat: '',
        },
      ],
    });
    const db = openDatabase(':memory:');
    const { keys } = loadDataset(db, d, opts);
    expect(keys[0]).toEqual({ id: 1, userId: 'u1', role: 'Sales', name: 'fixed', key: 'api_abcdefghijklmnopqrstuvwx' });
    expect(keys[1]!.key).toMatch(/^api_[a-z0-9]{24}$/);
    expect(db.prepare('SELECT expire_date, revoked, key_prefix, description FROM api_keys WHERE id = 1').get()).toEqual({
      expire_date: Date.UTC(2026, 0, 1),
      revoked: 1,
      key_prefix: 'api_abcd',
      description: '',
    });
    const rs = db.prepare('SELECT id, name, created_at, updated_at, data FROM resources ORDER BY id').all() as {
      id: number;
      name: string;
      created_at: number;
      updated_at: number;
      data: Buffer;
    }[];
    expect(rs.map((r) => [r.id, r.name])).toEqual([
      [1, 'one'],
      [2, 'no id'],
    ]);
    expect([rs[0]!.created_at, rs[0]!.updated_at]).toEqual([Date.UTC(2024, 0, 1), Date.UTC(2024, 1, 1)]);
    expect([rs[1]!.created_at, rs[1]!.updated_at]).toEqual([NOW.getTime(), NOW.getTime()]);
    expect(rs[1]!.data.toString('utf8')).toBe('<p>é</p>');
    db.close();
  });

  it('is all or nothing: a failure on the last insert leaves every table empty', () => {
    const d = buildDemoDataset(NOW);
    d.log!.push({ timeStamp: NOW.toISOString(), level: 'Fatal', message: 'boom', messageTemplate: 'boom' });
    const db = openDatabase(':memory:');
    db.exec(`CREATE TRIGGER fail_on_boom INSTEAD OF INSERT ON log WHEN NEW.message = 'boom'
             BEGIN SELECT RAISE(ABORT, 'simulated failure'); END`);
    expect(() => loadDataset(db, d, opts)).toThrow(/simulated failure/);
    expect(Object.values(counts(db)).every((n) => n === 0)).toBe(true);
    expect(isDatabaseEmpty(db)).toBe(true);
    expect(db.inTransaction).toBe(false);
    db.close();
  });

  it('is all or nothing: a unique code that collides with a row already there rolls everything back', () => {
    const d: Dataset = buildDemoDataset(NOW);
    const db = openDatabase(':memory:');
    const taken = d.customers![7]!.code;
    db.prepare('INSERT INTO customers (id, code, name, created_at) VALUES (1000, ?, ?, 0)').run(taken, 'Already here');
    expect(() => loadDataset(db, d, opts)).toThrow(/UNIQUE constraint failed: customers.code/);
    expect(counts(db)).toEqual({ ...Object.fromEntries(TABLES.map((t) => [t, 0])), customers: 1 });
    db.close();
  });

  it('is all or nothing when a hash function throws half-way through the keys', () => {
    const d = buildDemoDataset(NOW);
    const db = openDatabase(':memory:');
    let n = 0;
    const failing: LoadOptions = {
      ...opts,
      hashKey: (k) =>
        ++n === 3
          ? (() => {
              throw new Error('hash failed');
            })()
          : sha256(k),
    };
    expect(() => loadDataset(db, d, failing)).toThrow('hash failed');
    expect(Object.values(counts(db)).every((x) => x === 0)).toBe(true);
    db.close();
  });
});
