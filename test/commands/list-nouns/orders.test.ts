/** `lic orders list --customer ID` through the list machinery: status, payment, currency and time filters, --all, formats (seed demo). */
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

import { ORDER_LIST } from '../../../src/commands/orders/list.js';
import { dataCell } from '../../../src/cli/list/format.js';
import { csvRows, expectUsage, fullList, ids, itRejects, listed, ok, type Rec, requests } from './lists.js';
import { ndjson, ORDER_FIELDS, useService } from '../../helpers/fixtures.js';

/** the customer with the most orders, and its full list */
let customer: number;
let all: Rec[];
const list = (c: number = customer) => ['orders', 'list', '--customer', String(c)];
const ms = (r: Rec) => Date.parse(r.createdAt as string);

const { svc, env } = useService({ seed: 'demo' });
beforeAll(async () => {
  customer = svc.db
    .prepare('SELECT customer_id FROM orders GROUP BY customer_id ORDER BY count(*) DESC, customer_id LIMIT 1')
    .pluck()
    .get() as number;
  all = await fullList(list(), 'orders', env);
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
