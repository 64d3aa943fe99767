/**
 * `lic orders list --customer ID` in-process against the real service (seed demo) on port 0:
 * the columns piped and on a terminal, -o json, paging, roles, unknown customers, usage
 * errors, replies a socket-level fake chose; through the list machinery: the status,
 * payment, currency and time filters, --all, formats, bad flag values.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli } from '../../helpers/cli.js';
import { closedPort, reply, startFake } from '../../helpers/fake-server.js';
import { addUserWithKey, http } from '../../helpers/service.js';
import { Permission } from '../../../src/wire.js';
import { ORDER_LIST } from '../../../src/commands/orders/list.js';
import { dataCell } from '../../../src/cli/list/format.js';
import { csvRows, expectUsage, fullList, ids, itRejects, listed, ok, type Rec, requests } from '../../helpers/lists.js';
import { ndjson, ORDER_FIELDS, useService } from '../../helpers/fixtures.js';

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

/** the customer with the most orders, and its full list */
let customer: number;
let all: Rec[];
const list = (c: number = customer) => ['orders', 'list', '--customer', String(c)];
const ms = (r: Rec) => Date.parse(r.createdAt as string);
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
  customer = svc.db
    .prepare('SELECT customer_id FROM orders GROUP BY customer_id ORDER BY count(*) DESC, customer_id LIMIT 1')
    .pluck()
    .get() as number;
  all = await fullList(list(), 'orders', env);
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

describe('orders list friendly flags: exactly the records a filter over the full list gives', () => {
  it('the full list is every order of the customer', () => {
    expect(ids(all)).toEqual(svc.db.prepare('SELECT id FROM orders WHERE customer_id = ? ORDER BY id').pluck().all(customer));
    expect(all.length).toBeGreaterThan(20);
  });

  it.each([
    ['--status', 'status'],
    ['--payment-status', 'paymentStatus'],
    ['--payment-type', 'paymentType'],
    ['--currency', 'currency'],
  ])('%s: every value any demo order has, exact', async (flag, field) => {
    // the values of every customer's orders, so values this customer lacks are tried too
    const column = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const values = svc.db.prepare(`SELECT DISTINCT ${column} FROM orders ORDER BY 1`).pluck().all() as string[];
    expect(values.length).toBeGreaterThan(2);
    let matched = 0;
    for (const v of values) {
      const want = all.filter((o) => o[field] === v);
      if (want.length) matched++;
      expect(ids(await listed([...list(), flag, v], env)), `${flag} ${v}`).toEqual(ids(want));
    }
    expect(matched).toBeGreaterThan(0);
  });

  it('values are compared as given: another case matches nothing', async () => {
    const status = all[0]!.status as string;
    expect(await listed([...list(), '--status', status.toLowerCase()], env)).toEqual([]);
    expect(await listed([...list(), '--currency', (all[0]!.currency as string).toLowerCase()], env)).toEqual([]);
  });

  it('--since (inclusive) and --until (exclusive) on CreatedAt, RFC 3339 taken to the millisecond', async () => {
    const times = all.map(ms).sort((a, b) => a - b);
    const since = new Date(times[Math.floor(times.length / 3)]!).toISOString();
    const until = new Date(times[Math.floor((2 * times.length) / 3)]!).toISOString();
    const cases: [string[], (o: Rec) => boolean][] = [
      [['--since', since], (o) => ms(o) >= Date.parse(since)],
      [['--until', until], (o) => ms(o) < Date.parse(until)],
      [['--since', since, '--until', until], (o) => ms(o) >= Date.parse(since) && ms(o) < Date.parse(until)],
    ];
    for (const [flags, keep] of cases) {
      const want = all.filter(keep);
      expect(want.length).toBeGreaterThan(0);
      expect(want.length).toBeLessThan(all.length);
      expect(ids(await listed([...list(), ...flags], env)), flags.join(' ')).toEqual(ids(want));
    }
  });

  it('--since as a date and as an age before the clock (365d)', async () => {
    const median = new Date(all.map(ms).sort((a, b) => a - b)[Math.floor(all.length / 2)]!);
    const day = median.toISOString().slice(0, 10);
    expect(ids(await listed([...list(), '--since', day], env))).toEqual(ids(all.filter((o) => ms(o) >= Date.parse(`${day}T00:00:00Z`))));
    const now = new Date();
    const r = await runCli([...list(), '--since', '365d', '-o', 'ndjson', '--all'], { env, now: () => now });
    expect(r.code, r.stderr).toBe(0);
    const want = all.filter((o) => ms(o) >= now.getTime() - 365 * 86_400_000);
    expect(want.length).toBeGreaterThan(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(ids(want));
  });

  it('every flag together, AND-ed with --where; the filter sent', async () => {
    const o = all.find((x) => x.status === 'Completed') ?? all[0]!;
    const since = new Date(ms(o)).toISOString();
    const args = [
      '--status',
      o.status,
      '--payment-status',
      o.paymentStatus,
      '--payment-type',
      o.paymentType,
      '--currency',
      o.currency,
      '--since',
      since,
    ] as string[];
    const r = await ok([...list(), ...args, '--where', 'Total >= 0', '--verbose', '-o', 'ndjson'], env);
    const want = all.filter(
      (x) =>
        x.status === o.status &&
        x.paymentStatus === o.paymentStatus &&
        x.paymentType === o.paymentType &&
        x.currency === o.currency &&
        ms(x) >= ms(o) &&
        (x.total as number) >= 0,
    );
    expect(ids(ndjson(r.stdout))).toEqual(ids(want));
    expect(requests(r.stderr)[0]!.searchParams.get('filter')).toBe(
      `(Status = "${o.status}") and (PaymentStatus = "${o.paymentStatus}") and (PaymentType = "${o.paymentType}") and (Currency = "${o.currency}") and (CreatedAt >= "${since}") and (Total >= 0)`,
    );
  });

  it('orderFilters quotes values, so a value cannot change the expression', () => {
    expect(ORDER_LIST.filters({ status: 'x" or Status != "' }, new Date())).toContain('Status = "x\\" or Status != \\""');
  });
});

describe("the issue's example: lic orders list --customer 7 --status Pending -o csv", () => {
  it('literally, against customer 7: exit 0, a header row, exactly its Pending orders', async () => {
    const r = await runCli(['orders', 'list', '--customer', '7', '--status', 'Pending', '-o', 'csv'], { env });
    expect(r.code, r.stderr).toBe(0);
    const want = (await fullList(list(7), 'orders', env)).filter((o) => o.status === 'Pending');
    const { header, rows } = csvRows(r.stdout);
    expect(header).toEqual(ORDER_FIELDS);
    expect(rows.map((row) => Number(row[0]))).toEqual(ids(want));
  });

  it('for a customer with Pending orders (7 when it has some): parses back to those orders', async () => {
    const c = svc.db
      .prepare("SELECT customer_id FROM orders WHERE status = 'Pending' ORDER BY customer_id = 7 DESC, customer_id LIMIT 1")
      .pluck()
      .get() as number;
    const want = (await fullList(list(c), 'orders', env)).filter((o) => o.status === 'Pending');
    expect(want.length).toBeGreaterThan(0);
    const r = await ok([...list(c), '--status', 'Pending', '-o', 'csv'], env);
    const { header, rows } = csvRows(r.stdout);
    // raw values: the total as a number and the currency in its own column
    expect(rows).toEqual(want.map((o) => header.map((f) => dataCell(o[f]))));
    expect(rows.map((row) => row[header.indexOf('total')])).toEqual(want.map((o) => String(o.total)));
  });
});

describe('orders list --all and formats', () => {
  it('--all -o ndjson: every order exactly once, over pages by id', async () => {
    const r = await ok([...list(), '--all', '--take', '7', '-o', 'ndjson', '--verbose'], env);
    const recs = ndjson<Rec>(r.stdout);
    expect(ids(recs)).toEqual(ids(all));
    expect(new Set(ids(recs)).size).toBe(all.length);
    const reqs = requests(r.stderr);
    expect(reqs.length).toBeGreaterThanOrEqual(Math.ceil(all.length / 7));
    for (const u of reqs) expect(u.pathname).toBe(`/v1/customers/${customer}/orders`);
  });

  it('--all --sort createdAt:desc (pages by skip): every order once, newest first', async () => {
    const recs = await listed([...list(), '--sort', 'createdAt:desc', '--take', '5'], env);
    expect(ids(recs)).toEqual(ids([...all].sort((a, b) => ms(b) - ms(a) || (a.id as number) - (b.id as number))));
  });

  it('-o csv --fields: those columns, parsed back', async () => {
    const r = await ok([...list(), '--all', '--fields', 'id,orderNumber,total,currency', '-o', 'csv'], env);
    const { header, rows } = csvRows(r.stdout);
    expect(header).toEqual(['id', 'orderNumber', 'total', 'currency']);
    expect(rows.map((row) => [Number(row[0]), row[1], Number(row[2]), row[3]])).toEqual(
      all.map((o) => [o.id, o.orderNumber, o.total, o.currency]),
    );
  });

  it('-o json --all: one object, orders and their total', async () => {
    const r = await ok([...list(), '--status', 'Completed', '--all', '-o', 'json'], env);
    const body = JSON.parse(r.stdout);
    const want = all.filter((o) => o.status === 'Completed');
    expect(body.totalOrdersCount).toBe(want.length);
    expect(ids(body.orders)).toEqual(ids(want));
  });
});

describe('orders list bad flag values: exit 2 naming the flag', () => {
  itRejects(list, env, [
    [['--since', 'yesterday'], '--since'],
    [['--until', '2025-02-30'], '--until'],
    [['--since', '2025-06-01', '--until', '2025-01-01'], '--since'],
    [['--status', ''], '--status'],
    [['--payment-status', ''], '--payment-status'],
    [['--payment-type', ''], '--payment-type'],
    [['--currency', ''], '--currency'],
    [['--fields', 'id,customer'], '--fields'],
    [['--sort', 'createdAt:newest'], '--sort'],
  ]);

  it('--customer is still required and checked', async () => {
    expectUsage(await runCli(['orders', 'list', '--status', 'Pending'], { env }), '--customer');
    expectUsage(await runCli(['orders', 'list', '--customer', '0'], { env }), '--customer');
  });
});
