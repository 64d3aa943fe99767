/** `lic products list --customer CODE` through the list machinery, unpaged (the endpoint takes no query): --fields, --limit, formats (seed demo). */
import { beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli } from '../../helpers/cli.js';

import { dataCell } from '../../../src/cli/list/format.js';
import { csvRows, expectUsage, ndjson, ok, requests, type Rec } from './lists.js';
import { useService, PRODUCT_FIELDS } from '../../helpers/fixtures.js';

let env: Record<string, string>;
let code: string;
/** the full list, from `-o json` (one reply: there is no --all) */
let all: Rec[];
const list = () => ['products', 'list', '--customer', code];

const { svc } = useService({ seed: 'demo' });
beforeAll(async () => {
  const k = svc.issuedKeys.find((x) => x.role === 'Customer')!;
  env = envFor(svc, k.key);
  code = svc.db.prepare('SELECT customer_code FROM users WHERE id = ?').pluck().get(k.userId) as string;
  all = JSON.parse((await ok([...list(), '-o', 'json'], env)).stdout).products as Rec[];
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
