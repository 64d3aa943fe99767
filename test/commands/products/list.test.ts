/**
 * `lic products list --customer CODE` in-process against the real service (seed demo) on
 * port 0: the columns piped and on a terminal, -o json, another customer's code, roles,
 * usage errors; through the list machinery, unpaged (the endpoint takes no query):
 * --fields, --limit, formats, and the flags it cannot honour.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli } from '../../helpers/cli.js';
import { closedPort } from '../../helpers/fake-server.js';
import { http } from '../../helpers/service.js';
import { dataCell } from '../../../src/cli/list/format.js';
import { csvRows, expectUsage, ndjson, ok, requests, type Rec } from '../../helpers/lists.js';
import { useService, PRODUCT_FIELDS } from '../../helpers/fixtures.js';

interface Row {
  id: number;
  code: string;
  name: string;
  price: number;
  reseller_price: number;
  currency: string;
  created_at: number;
}

/** the demo Customer user's key and customer, the CLI's environment with that key */
let key: string;
let own: { id: number; code: string };
let env: Record<string, string>;
let code: string;
/** the full list, from `-o json` (one reply: there is no --all) */
let all: Rec[];
const list = () => ['products', 'list', '--customer', code];
const rowsOf = (customerId: number): Row[] =>
  svc.db
    .prepare('SELECT p.* FROM customer_products cp JOIN products p ON p.id = cp.product_id WHERE cp.customer_id = ? ORDER BY p.id')
    .all(customerId) as Row[];
/** TSV line from the database: ID CODE NAME PRICE RESELLER PRICE CURRENCY CREATED. */
const line = (p: Row) =>
  [p.id, p.code, p.name, p.price.toFixed(2), p.reseller_price.toFixed(2), p.currency, new Date(p.created_at).toISOString()].join('\t');

const { svc } = useService({ seed: 'demo' });
beforeAll(async () => {
  const k = svc.issuedKeys.find((x) => x.role === 'Customer')!;
  key = k.key;
  own = svc.db.prepare('SELECT c.id, c.code FROM users u JOIN customers c ON c.code = u.customer_code WHERE u.id = ?').get(k.userId) as {
    id: number;
    code: string;
  };
  env = envFor(svc, key);
  code = own.code;
  all = JSON.parse((await ok([...list(), '-o', 'json'], env)).stdout).products as Rec[];
});

describe('lic products list --customer CODE', () => {
  it("piped: one line per product of the caller's customer, columns ID CODE NAME PRICE RESELLER PRICE CURRENCY CREATED", async () => {
    const r = await runCli(['products', 'list', '--customer', own.code], { env: envFor(svc, key) });
    expect(r.code, r.stderr).toBe(0);
    const want = rowsOf(own.id);
    expect(want.length).toBeGreaterThan(1);
    expect(r.stdout).toBe(want.map(line).join('\n') + '\n');
  });

  it('on a terminal: a table with the column headers', async () => {
    const r = await runCli(['products', 'list', '--customer', own.code], { env: { ...envFor(svc, key), NO_COLOR: '1' }, tty: true });
    expect(r.code, r.stderr).toBe(0);
    const header = r.stdout.split('\n').find((l) => l.includes('RESELLER PRICE'))!;
    for (const h of ['ID', 'CODE', 'NAME', 'PRICE', 'RESELLER PRICE', 'CURRENCY', 'CREATED']) expect(header).toContain(h);
    for (const p of rowsOf(own.id)) expect(r.stdout).toContain(p.name);
  });

  it('-o json prints the service body unchanged (products only, no total)', async () => {
    const r = await runCli(['products', 'list', '--customer', own.code, '-o', 'json'], { env: envFor(svc, key) });
    expect(r.code, r.stderr).toBe(0);
    const direct = await http(svc, 'GET', `/v1/customer/${own.code}/products`, { key });
    expect(JSON.parse(r.stdout)).toEqual(direct.body);
    expect(JSON.parse(r.stdout).totalProductsCount).toBeUndefined();
  });

  it("another customer's code → exit 4, nothing on stdout", async () => {
    const other = svc.db.prepare('SELECT code FROM customers WHERE id <> ? LIMIT 1').pluck().get(own.id) as string;
    const r = await runCli(['products', 'list', '--customer', other], { env: envFor(svc, key) });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`no customer with code "${other}"`);
  });

  it('an Administrator key → exit 3: the endpoint is for Customer users', async () => {
    const r = await runCli(['products', 'list', '--customer', own.code], { env: envFor(svc, svc.adminKey) });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/allowed roles: Customer.*HTTP 403/);
  });
});

describe('lic products list: usage errors (exit 2, nothing sent)', () => {
  let offline: Record<string, string>;
  beforeAll(async () => {
    offline = { LIC_BASE_URL: `http://127.0.0.1:${await closedPort()}`, LIC_API_KEY: 'api_000000000000000000000000' };
  });

  it('--customer is required', async () => {
    const r = await runCli(['products', 'list'], { env: offline });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("required option '--customer <code>' not specified");
  });

  it.each([
    ['', 'such as C-'],
    ['   ', 'such as C-'],
    ['C-AB/CD', 'cannot contain "/"'],
    ['../api-keys', 'cannot contain "/"'],
    ['C'.repeat(257), 'at most 256 characters'],
  ])('--customer %j is refused: %s', async (v, msg) => {
    const r = await runCli(['products', 'list', '--customer', v], { env: offline });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`option '--customer <code>' argument '${v}' is invalid`);
    expect(r.stderr).toContain(msg);
  });

  it('a code in another format is sent as given (loose check): the service decides', async () => {
    const r = await runCli(['products', 'list', '--customer', 'acme ltd?#'], { env: envFor(svc, key) });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('no customer with code "acme ltd?#"');
  });
});

describe('products list through the machinery (paged: false)', () => {
  it("the full list is the customer's products", () => {
    const want = svc.db
      .prepare(
        'SELECT p.id FROM customer_products cp JOIN products p ON p.id = cp.product_id JOIN customers c ON c.id = cp.customer_id WHERE c.code = ? ORDER BY p.id',
      )
      .pluck()
      .all(code);
    expect(all.map((p) => p.id)).toEqual(want);
    expect(all.length).toBeGreaterThan(1);
  });

  it('-o ndjson: every product exactly once, from one request without query parameters', async () => {
    const r = await ok([...list(), '-o', 'ndjson', '--verbose'], env);
    expect(ndjson(r.stdout)).toEqual(all);
    const reqs = requests(r.stderr);
    expect(reqs).toHaveLength(1);
    expect(reqs[0]!.search).toBe('');
  });

  it('-o csv: a header row, and parses back', async () => {
    const r = await ok([...list(), '-o', 'csv'], env);
    const { header, rows } = csvRows(r.stdout);
    expect(header).toEqual(PRODUCT_FIELDS);
    expect(rows).toEqual(all.map((p) => header.map((f) => dataCell(p[f]))));
  });

  it('--fields (any case): the records carry exactly those, applied to the reply', async () => {
    const r = await ok([...list(), '--fields', 'CODE,price', '-o', 'ndjson'], env);
    expect(ndjson(r.stdout)).toEqual(all.map((p) => ({ code: p.code, price: p.price })));
    const c = await ok([...list(), '--fields', 'code,price', '-o', 'csv'], env);
    const { header, rows } = csvRows(c.stdout);
    expect(header).toEqual(['code', 'price']);
    expect(rows).toEqual(all.map((p) => [p.code, String(p.price)]));
  });

  it('--limit N: the first N', async () => {
    const r = await ok([...list(), '--limit', '1', '-o', 'ndjson'], env);
    expect(ndjson(r.stdout)).toEqual(all.slice(0, 1));
  });

  it('-o json with --fields: one object with the products array', async () => {
    const r = await ok([...list(), '--fields', 'id', '-o', 'json'], env);
    expect(JSON.parse(r.stdout).products).toEqual(all.map((p) => ({ id: p.id })));
  });
});

describe('products list: flags the endpoint cannot honour are usage errors (exit 2), nothing sent', () => {
  it.each([
    [['--where', 'Price > 1'], '--where'],
    [['--sort', 'name'], '--sort'],
    [['--all'], '--all'],
    [['--take', '1'], '--take'],
    [['--skip', '1'], '--skip'],
    [['--fields', 'id,secret'], '--fields'],
    [['--limit', 'many'], '--limit'],
  ])('%j', async (args, flag) => {
    const r = await runCli([...list(), ...args, '--verbose'], { env });
    expectUsage(r, flag);
    expect(requests(r.stderr)).toEqual([]);
  });

  it('--help says why there is no --where, --sort or --all', async () => {
    const r = await runCli(['products', 'list', '--help'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/no --where, --sort, --take\/--skip or --all/);
  });
});
