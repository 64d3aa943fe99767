import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOG_LEVELS, ROLES } from '../../../src/wire.js';
import { parseDataset } from '../../../src/server/seed/dataset.js';
import { buildDemoDataset } from '../../../src/server/seed/demo.js';

const NOW = new Date('2025-06-01T12:00:00.000Z');
const nowMs = NOW.getTime();
const DAY = 86_400_000;
const d = buildDemoDataset(NOW);
const ms = (s: string): number => Date.parse(s);
const distinct = <T>(xs: T[]): Set<T> => new Set(xs);

afterEach(() => vi.restoreAllMocks());

describe('buildDemoDataset', () => {
  it('passes parseDataset, directly and after a JSON round trip', () => {
    expect(() => parseDataset(d)).not.toThrow();
    const text = JSON.stringify(d);
    expect(parseDataset(JSON.parse(text))).toEqual(d);
  });

  it('is deterministic for the same (now, seed) and uses no ambient randomness or clock', () => {
    vi.spyOn(Math, 'random').mockImplementation(() => {
      throw new Error('Math.random used');
    });
    vi.spyOn(Date, 'now').mockImplementation(() => {
      throw new Error('Date.now used');
    });
    const again = buildDemoDataset(new Date(nowMs));
    expect(JSON.stringify(again)).toBe(JSON.stringify(d));
    expect(JSON.stringify(buildDemoDataset(NOW, 2))).toBe(JSON.stringify(buildDemoDataset(NOW, 2)));
  });

  it('gives the same bytes as it always has (its fingerprint is pinned)', () => {
    // a refactor must not change a byte of the demo; one that changes the data on purpose updates these
    const sha256 = (x: unknown): string => createHash('sha256').update(JSON.stringify(x)).digest('hex');
    expect(sha256(d)).toBe('7de47c891c3a281522603c1310455c6e5d5e4eb6c96f81a0793779990816c4af');
    expect(sha256(buildDemoDataset(new Date('2026-03-15T08:30:00.123Z'), 123456789))).toBe(
      '27a75b23b782a8fce209ebe74d3ec3357a50b06ce2022fe47f7ab7abc72c4b64',
    );
  });

  it('varies with the seed', () => {
    const other = buildDemoDataset(NOW, 2);
    expect(other.customers!.map((c) => c.code)).not.toEqual(d.customers!.map((c) => c.code));
    expect(other.orders!.map((o) => o.total)).not.toEqual(d.orders!.map((o) => o.total));
  });

  it.each([
    [new Date('2024-02-29T23:59:59.999Z'), 1],
    [new Date('2031-12-31T00:00:00.000Z'), 7],
    [new Date('2026-03-15T08:30:00.123Z'), 123456789],
    [new Date('2025-06-01T12:00:00.000Z'), 0],
  ])('is valid for now=%s seed=%i', (now, seed) => {
    const x = buildDemoDataset(now, seed);
    expect(() => parseDataset(JSON.parse(JSON.stringify(x)))).not.toThrow();
    const latest = Math.max(
      ...[...x.orders!, ...x.customers!, ...x.products!].map((r) => ms(r.createdAt)),
      ...x.log!.map((e) => ms(e.timeStamp)),
    );
    expect(latest).toBeLessThanOrEqual(now.getTime());
    expect(distinct(x.orders!.map((o) => o.status)).size).toBeGreaterThanOrEqual(4);
  });

  it('rejects an invalid now', () => {
    expect(() => buildDemoDataset(new Date(NaN))).toThrow(RangeError);
  });

  it('has a product catalogue of 5 products, 2-4 releases each, 1-3 templates per release', () => {
    expect(d.products).toHaveLength(5);
    for (const p of d.products!) {
      const rels = d.releases!.filter((r) => r.productId === p.id);
      expect(rels.length).toBeGreaterThanOrEqual(2);
      expect(rels.length).toBeLessThanOrEqual(4);
      for (const r of rels) {
        const ts = d.licenseTemplates!.filter((t) => t.releaseId === r.id);
        expect(ts.length).toBeGreaterThanOrEqual(1);
        expect(ts.length).toBeLessThanOrEqual(3);
        for (const t of ts) expect(t.productId).toBe(p.id);
        expect(ms(r.releaseDate)).toBeLessThan(nowMs);
      }
      expect(p.price).toBeGreaterThan(0);
      expect(p.resellerPrice).toBeLessThan(p.price);
      expect(p.signatureKeysId).toBe(1);
    }
    expect(distinct(d.licenseTemplates!.map((t) => t.code)).size).toBe(d.licenseTemplates!.length);
  });

  it('writes template XML in the Licenses/License shape', () => {
    for (const t of d.licenseTemplates!) {
      expect(t.format).toBe('Xml');
      expect(t.template).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?>\n<Licenses /);
      expect(t.template).toMatch(/<License [^>]*type="(Full|Trial|Floating)" issueDate="[^"]+Z" supportExpireDate="[^"]+Z">/);
      expect(t.template).toContain('<Product name=');
      expect(t.template).toContain('<Features>');
      expect(t.template).toContain('<Restrictions>');
      expect(t.features.length).toBeGreaterThan(0);
      expect(t.restrictions.length).toBeGreaterThan(0);
      expect(t.fields.map((f) => f.name)).toContain('Edition');
    }
    expect(d.licenseTemplates!.some((t) => t.template.includes('type="Trial"'))).toBe(true);
  });

  it('has 20 customers with C-XXXXXXXX codes, product links, non-ASCII names', () => {
    expect(d.customers).toHaveLength(20);
    for (const c of d.customers!) expect(c.code).toMatch(/^C-[A-Z0-9]{8}$/);
    expect(distinct(d.customers!.map((c) => c.code)).size).toBe(20);
    expect(d.customers!.some((c) => /[^\x00-\x7f]/.test(c.name))).toBe(true);
    for (const c of d.customers!) expect(d.customerProducts!.some((cp) => cp.customerId === c.id)).toBe(true);
    expect(d.customerProducts!.length).toBeGreaterThanOrEqual(30);
  });

  it('has one user per role, each with one full-permission key; the Customer owns products', () => {
    expect(d.users.map((u) => u.role).sort()).toEqual([...ROLES].sort());
    expect(d.apiKeys).toHaveLength(4);
    expect(d.apiKeys!.map((k) => k.ownerId).sort()).toEqual(d.users.map((u) => u.id).sort());
    for (const k of d.apiKeys!) {
      expect(k.permissions).toBe(7);
      expect(k.key).toBeUndefined();
    }
    const cu = d.users.find((u) => u.role === 'Customer')!;
    const customer = d.customers!.find((c) => c.code === cu.customerCode)!;
    expect(d.customerProducts!.filter((cp) => cp.customerId === customer.id).length).toBeGreaterThanOrEqual(2);
    expect(d.orders!.filter((o) => o.customerId === customer.id).length).toBeGreaterThan(0);
  });

  it('has ~300 varied, internally consistent orders over the last two years', () => {
    const orders = d.orders!;
    expect(orders.length).toBe(300);
    expect(distinct(orders.map((o) => o.status))).toEqual(distinct(['Pending', 'Processing', 'Completed', 'Cancelled', 'Refunded']));
    expect(distinct(orders.map((o) => o.paymentType))).toEqual(
      distinct(['CreditCard', 'PayPal', 'BankTransfer', 'Invoice', 'PurchaseOrder']),
    );
    expect(distinct(orders.map((o) => o.paymentStatus))).toEqual(distinct(['Unpaid', 'Paid', 'PartiallyPaid', 'Refunded', 'Failed']));
    expect(distinct(orders.map((o) => o.currency))).toEqual(distinct(['USD', 'EUR', 'GBP', 'JPY', 'CHF']));
    expect(distinct(orders.map((o) => o.customerId)).size).toBeGreaterThanOrEqual(15);
    expect(orders.some((o) => o.resellerId !== 0)).toBe(true);
    for (const o of orders) {
      const created = ms(o.createdAt);
      expect(created).toBeGreaterThanOrEqual(nowMs - 731 * DAY);
      expect(created).toBeLessThanOrEqual(nowMs);
      expect(ms(o.updatedAt)).toBeGreaterThanOrEqual(created);
      expect(ms(o.updatedAt)).toBeLessThanOrEqual(nowMs);
      expect(o.total).toBeGreaterThan(0);
      if (o.currency === 'JPY') expect(Number.isInteger(o.total)).toBe(true);
      expect(o.status === 'Refunded').toBe(o.paymentStatus === 'Refunded');
      if (o.status === 'Pending') expect(['Unpaid', 'Failed']).toContain(o.paymentStatus);
      if (o.status === 'Cancelled') expect(['Unpaid', 'Failed']).toContain(o.paymentStatus);
      if (o.status === 'Completed') expect(['Paid', 'PartiallyPaid', 'Unpaid']).toContain(o.paymentStatus);
      if (o.paymentStatus === 'Unpaid' && o.status === 'Completed')
        expect(['Invoice', 'BankTransfer', 'PurchaseOrder']).toContain(o.paymentType);
      const paid = ['Paid', 'PartiallyPaid', 'Refunded'].includes(o.paymentStatus);
      expect(o.paymentDate !== '').toBe(paid);
      expect(o.paymentNumber !== '').toBe(paid);
      if (paid) expect(ms(o.paymentDate!)).toBeGreaterThanOrEqual(created);
      if (o.paymentType === 'PurchaseOrder') expect(o.purchaseOrder).not.toBe('');
      expect(o.description).not.toBe('');
    }
    expect(distinct(orders.map((o) => o.orderNumber)).size).toBe(300);
    // ids follow time
    for (let i = 1; i < orders.length; i++) expect(ms(orders[i]!.createdAt)).toBeGreaterThanOrEqual(ms(orders[i - 1]!.createdAt));
  });

  it('has the signing key, e-mail templates and assemblies', () => {
    const key = d.resources!.find((r) => r.type === 'RSA')!;
    expect(key).toMatchObject({ name: 'Demo signing key', dataFormat: 'SNK' });
    expect(Buffer.from(key.data, 'base64')).toHaveLength(596);
    const email = d.resources!.find((r) => r.type === 'email' && r.dataFormat === 'html')!;
    const html = Buffer.from(email.data, 'base64').toString('utf8');
    expect(html).toContain('{CustomerName}');
    expect(html).toContain('{ProductName}');
    expect(html).toMatch(/[^\x00-\x7f]/);
    expect(d.assemblies!.length).toBeGreaterThanOrEqual(3);
    for (const a of d.assemblies!) {
      expect(a.version).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(a.publicKeyToken).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(d.assemblies!.find((a) => a.name === 'System.Xml.Linq')).toMatchObject({
      version: '4.0.0.0',
      publicKeyToken: 'b77a5c561934e089',
    });
    expect(d.assemblies!.some((a) => a.mappingFileId !== 0)).toBe(true);
  });

  it('reads as English: no "1 days" in a message', () => {
    expect(d.log!.filter((e) => /\b1 days\b/.test(e.message)).map((e) => e.message)).toEqual([]);
  });

  it('has ~3000 log entries over 30 days, all levels, many in the last 24 h', () => {
    const log = d.log!;
    expect(log.length).toBe(3000);
    expect(distinct(log.map((e) => e.level))).toEqual(distinct([...LOG_LEVELS]));
    const recent = log.filter((e) => ms(e.timeStamp) > nowMs - DAY);
    expect(recent.length).toBeGreaterThanOrEqual(300);
    expect(distinct(recent.map((e) => e.level))).toEqual(distinct([...LOG_LEVELS]));
    for (let i = 0; i < log.length; i++) {
      const e = log[i]!;
      const t = ms(e.timeStamp);
      expect(t).toBeGreaterThanOrEqual(nowMs - 30 * DAY);
      expect(t).toBeLessThanOrEqual(nowMs);
      if (i > 0) expect(t).toBeGreaterThanOrEqual(ms(log[i - 1]!.timeStamp));
      // message is the Serilog rendering of messageTemplate with properties
      const props = JSON.parse(e.properties!) as Record<string, unknown>;
      expect(props.SourceContext).toEqual(expect.any(String));
      const rendered = e.messageTemplate.replace(/\{(\w+)\}/g, (_, k: string) => {
        expect(props).toHaveProperty(k);
        const v = props[k];
        return typeof v === 'number' ? String(v) : JSON.stringify(v);
      });
      expect(e.message).toBe(rendered);
      if (e.level === 'Error' || e.level === 'Fatal') expect(e.exception).toMatch(/^[\w.`]+(Exception)?: .+\n {3}at /);
    }
    const templates = distinct(log.map((e) => e.messageTemplate));
    expect(templates.size).toBeGreaterThanOrEqual(15);
    for (const word of ['activated', 'deactivated', 'validated', 'Floating license', 'released', 'validation failed', 'by API key']) {
      expect(
        [...templates].some((t) => t.includes(word)),
        word,
      ).toBe(true);
    }
    const codes = distinct(d.customers!.map((c) => c.code));
    expect(log.some((e) => codes.has(JSON.parse(e.properties!).CustomerCode as string))).toBe(true);
  });
});
