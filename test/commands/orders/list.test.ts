/** `lic orders list` in-process against the real service (seed demo) on port 0. */
import { beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli } from '../../helpers/cli.js';
import { closedPort, reply, startFake } from '../../helpers/fake-server.js';
import { addUserWithKey, http } from '../../helpers/service.js';
import { Permission } from '../../../src/wire.js';
import { useService } from '../../helpers/fixtures.js';

interface Row {
  id: number;
  order_number: string;
  status: string;
  payment_status: string;
  payment_type: string;
  total: number;
  currency: string;
  created_at: number;
  invoice_number: string;
}

let customer: number;
const rowsOf = (id: number): Row[] => svc.db.prepare('SELECT * FROM orders WHERE customer_id = ? ORDER BY id').all(id) as Row[];
/** The TSV line of an order, computed from the database: ID NUMBER STATUS PAYMENT TYPE TOTAL CREATED INVOICE. */
const line = (o: Row) =>
  [
    o.id,
    o.order_number,
    o.status,
    o.payment_status,
    o.payment_type,
    `${o.total.toFixed(2)} ${o.currency}`,
    new Date(o.created_at).toISOString(),
    o.invoice_number,
  ].join('\t');

const { svc, env } = useService({ seed: 'demo' });
beforeAll(async () => {
  customer = svc.db.prepare('SELECT customer_id FROM orders GROUP BY customer_id ORDER BY count(*) DESC LIMIT 1').pluck().get() as number;
});

describe('lic orders list --customer ID', () => {
  it('piped: one tab-separated line per order, columns ID NUMBER STATUS PAYMENT TYPE TOTAL CREATED INVOICE', async () => {
    const r = await runCli(['orders', 'list', '--customer', String(customer)], { env });
    expect(r.code, r.stderr).toBe(0);
    const want = rowsOf(customer);
    expect(want.length).toBeGreaterThan(3);
    expect(r.stdout).toBe(want.map(line).join('\n') + '\n');
    expect(r.stderr).toBe('');
  });

  it('TOTAL has 2 decimals and the currency, also for whole amounts and yen', async () => {
    const r = await runCli(['orders', 'list', '--customer', String(customer)], { env });
    const totals = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t')[5]);
    for (const t of totals) expect(t).toMatch(/^-?\d+\.\d{2} [A-Z]{3}$/);
  });

  it('on a terminal: a table with the column headers', async () => {
    const r = await runCli(['orders', 'list', '--customer', String(customer)], { env: { ...env, NO_COLOR: '1' }, tty: true });
    expect(r.code, r.stderr).toBe(0);
    const header = r.stdout.split('\n').find((l) => l.includes('NUMBER'))!;
    expect(header.split(/[\s│|]+/).filter(Boolean)).toEqual(['ID', 'NUMBER', 'STATUS', 'PAYMENT', 'TYPE', 'TOTAL', 'CREATED', 'INVOICE']);
    for (const o of rowsOf(customer)) expect(r.stdout).toContain(o.order_number);
    expect(r.stdout).not.toMatch(/\x1b\[/);
  });

  it('-o json prints the service body unchanged', async () => {
    const r = await runCli(['orders', 'list', '--customer', String(customer), '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const direct = await http(svc, 'GET', `/v1/customers/${customer}/orders`, { key: svc.adminKey });
    expect(JSON.parse(r.stdout)).toEqual(direct.body);
  });

  it('--take and --skip page the list', async () => {
    const r = await runCli(['orders', 'list', '--customer', String(customer), '--take', '2', '--skip', '1'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(rowsOf(customer).slice(1, 3).map(line).join('\n') + '\n');
  });

  it('a Sales key may list orders; a LicenseManager key gets exit 3 with the reason', async () => {
    const sales = await runCli(['orders', 'list', '--customer', String(customer)], {
      env: envFor(svc, svc.issuedKeys.find((k) => k.role === 'Sales')!.key),
    });
    expect(sales.code, sales.stderr).toBe(0);
    expect(sales.stdout.trim().split('\n')).toHaveLength(rowsOf(customer).length);
    const lm = await runCli(['orders', 'list', '--customer', String(customer)], {
      env: envFor(svc, svc.issuedKeys.find((k) => k.role === 'LicenseManager')!.key),
    });
    expect(lm.code).toBe(3);
    expect(lm.stdout).toBe('');
    expect(lm.stderr).toMatch(/role LicenseManager.*HTTP 403, code 7/);
  });

  it('a key without the Read bit → exit 3', async () => {
    const key = await addUserWithKey(svc, 'orders-cli-wd', 'Sales', Permission.Write | Permission.Delete);
    const r = await runCli(['orders', 'list', '--customer', String(customer)], { env: envFor(svc, key) });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('Read (1)');
  });

  it('an unknown customer → exit 4 naming it', async () => {
    const id = (svc.db.prepare('SELECT max(id) FROM customers').pluck().get() as number) + 100;
    const r = await runCli(['orders', 'list', '--customer', String(id)], { env });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`no customer with id ${id}`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a customer without orders prints nothing and exits 0', async () => {
    const id = (svc.db.prepare('SELECT max(id) FROM customers').pluck().get() as number) + 1;
    svc.db.prepare("INSERT INTO customers (id, code, name, created_at) VALUES (?, 'C-CLI00000', 'Empty', 0)").run(id);
    const r = await runCli(['orders', 'list', '--customer', String(id)], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
  });
});

describe('lic orders list: usage errors (exit 2, nothing sent)', () => {
  let offline: Record<string, string>;
  beforeAll(async () => {
    offline = { LIC_BASE_URL: `http://127.0.0.1:${await closedPort()}`, LIC_API_KEY: 'api_000000000000000000000000' };
  });

  it('--customer is required', async () => {
    const r = await runCli(['orders', 'list'], { env: offline });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("required option '--customer <id>' not specified");
  });

  it.each(['0', '-1', '2147483648', '1.5', 'abc', '1e3', '0x10', ''])('--customer %j is refused before any request', async (v) => {
    const r = await runCli(['orders', 'list', '--customer', v], { env: offline });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`option '--customer <id>' argument '${v}' is invalid`);
    expect(r.stderr).toContain('1..2147483647');
  });

  it.each([
    ['--take', '1001'],
    ['--take', '-1'],
    ['--skip', 'x'],
  ])('%s %s is refused', async (flag, v) => {
    const r = await runCli(['orders', 'list', '--customer', '1', flag, v], { env: offline });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`option '${flag} <n>' argument '${v}' is invalid`);
  });
});

describe('lic orders list against a server that chose otherwise (socket-level fake)', () => {
  it('a reply without the orders array (the original omits empty lists) is an empty list', async () => {
    const fake = await startFake((s) => reply(s, 200, '{"success":true}'));
    try {
      const r = await runCli(['orders', 'list', '--customer', '1'], {
        env: { LIC_BASE_URL: fake.url, LIC_API_KEY: 'api_000000000000000000000000' },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      expect(fake.requests[0]!.path).toBe('/v1/customers/1/orders');
    } finally {
      await fake.close();
    }
  });

  it('a reply whose orders is not an array is a clear error (exit 1), not a crash', async () => {
    const fake = await startFake((s) => reply(s, 200, '{"success":true,"orders":{"id":1}}'));
    try {
      const r = await runCli(['orders', 'list', '--customer', '1'], {
        env: { LIC_BASE_URL: fake.url, LIC_API_KEY: 'api_000000000000000000000000' },
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('"orders" that is not a list');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await fake.close();
    }
  });
});
