/** `lic products list --customer CODE` in-process against the real service (seed demo) on port 0. */
import { beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli } from '../../helpers/cli.js';
import { closedPort } from '../../helpers/fake-server.js';
import { http } from '../../helpers/service.js';
import { useService } from '../../helpers/fixtures.js';

interface Row {
  id: number;
  code: string;
  name: string;
  price: number;
  reseller_price: number;
  currency: string;
  created_at: number;
}

/** the demo Customer user's key and customer */
let key: string;
let own: { id: number; code: string };
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
