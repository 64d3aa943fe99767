/**
 * `lic templates list --product P --release R` in-process against the real service (seed demo)
 * on port 0: the columns piped and on a terminal, -o json, paging, roles, unknown product or
 * release; through the list machinery: --name-contains, --all, formats, bad flag values.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli } from '../../helpers/cli.js';
import { closedPort } from '../../helpers/fake-server.js';
import { http } from '../../helpers/service.js';

import { dataCell } from '../../../src/cli/list/format.js';
import { csvRows, expectUsage, fullList, ids, itRejects, listed, ok, type Rec, requests } from '../../helpers/lists.js';
import { ndjson, useService } from '../../helpers/fixtures.js';

interface Row {
  id: number;
  name: string;
  code: string;
  format: string;
  license_file_name: string;
  signature_keys_id: number;
  description: string;
  template: string;
}

/** the release with the most templates */
let rel: { p: number; r: number };
const rowsOf = (p: number, r: number): Row[] =>
  svc.db.prepare('SELECT * FROM license_templates WHERE product_id = ? AND release_id = ? ORDER BY id').all(p, r) as Row[];
/** TSV line from the database: ID NAME CODE FORMAT FILE NAME SIGNING KEY DESCRIPTION. */
const line = (t: Row) => [t.id, t.name, t.code, t.format, t.license_file_name, t.signature_keys_id || '', t.description].join('\t');

/** every (product, release) of the demo with templates, and the one with the most */
let releases: { product: number; release: number }[];
let big: { product: number; release: number };
let all: Rec[];
const list = (s: { product: number; release: number } = big) => [
  'templates',
  'list',
  '--product',
  String(s.product),
  '--release',
  String(s.release),
];

const { svc, env } = useService({ seed: 'demo' });
beforeAll(async () => {
  releases = svc.db
    .prepare('SELECT product_id AS product, release_id AS release FROM license_templates GROUP BY 1, 2 ORDER BY 1, 2')
    .all() as typeof releases;
  big = svc.db
    .prepare('SELECT product_id AS product, release_id AS release FROM license_templates GROUP BY 1, 2 ORDER BY count(*) DESC, 2 LIMIT 1')
    .get() as typeof big;
  all = await fullList(list(), 'licenseTemplates', env);
  rel = svc.db
    .prepare('SELECT product_id AS p, release_id AS r FROM license_templates GROUP BY release_id ORDER BY count(*) DESC LIMIT 1')
    .get() as { p: number; r: number };
});

/** `lic templates list` of the release `rel` with `extra` flags. */
const listRel = (...extra: string[]) => ['templates', 'list', '--product', String(rel.p), '--release', String(rel.r), ...extra];

describe('templates list --name-contains: exactly the records a filter over the full list gives', () => {
  it('the full list of a release is its templates', () => {
    expect(ids(all)).toEqual(svc.db.prepare('SELECT id FROM license_templates WHERE release_id = ? ORDER BY id').pluck().all(big.release));
    expect(all.length).toBeGreaterThan(2);
  });

  it('in every release of the demo, for several texts (case-sensitive)', async () => {
    expect(releases.length).toBeGreaterThan(10);
    let hits = 0;
    for (const rel of releases) {
      const full = await fullList(list(rel), 'licenseTemplates', env);
      for (const text of ['Professional', 'Trial', 'trial', ' 4.', 'Enterprise']) {
        const want = full.filter((t) => (t.name as string).includes(text));
        hits += want.length;
        expect(
          ids(await listed([...list(rel), '--name-contains', text], env)),
          `${rel.product}/${rel.release} --name-contains ${text}`,
        ).toEqual(ids(want));
      }
    }
    expect(hits).toBeGreaterThan(10);
  });

  it('AND-ed with --where; the filter sent', async () => {
    const r = await ok(
      [...list(), '--name-contains', 'i', '--where', 'GenerateKeyInfo = true or GenerateKeyInfo = false', '--verbose', '-o', 'ndjson'],
      env,
    );
    expect(
      ids(
        r.stdout
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      ),
    ).toEqual(ids(all.filter((t) => (t.name as string).includes('i'))));
    expect(requests(r.stderr)[0]!.searchParams.get('filter')).toBe(
      '(Name.Contains("i")) and (GenerateKeyInfo = true or GenerateKeyInfo = false)',
    );
  });
});

describe('templates list --all and formats', () => {
  it('--all -o ndjson: every template of the release exactly once, one page per template', async () => {
    const r = await ok([...list(), '--all', '--take', '1', '-o', 'ndjson', '--verbose'], env);
    const recs = ndjson<Rec>(r.stdout);
    expect(ids(recs)).toEqual(ids(all));
    expect(new Set(ids(recs)).size).toBe(all.length);
    expect(requests(r.stderr).length).toBeGreaterThanOrEqual(all.length);
  });

  it('-o csv: a header row, and parses back', async () => {
    const r = await ok([...list(), '--all', '-o', 'csv'], env);
    const { header, rows } = csvRows(r.stdout);
    // every declared field but the template body, raw (arrays and the product as JSON)
    expect(header).toEqual([
      'id',
      'name',
      'code',
      'format',
      'licenseFileName',
      'generateKeyInfo',
      'description',
      'productId',
      'signatureKeysId',
      'releaseId',
      'product',
      'components',
      'assemblies',
      'fields',
      'features',
      'restrictions',
    ]);
    expect(rows).toEqual(all.map((t) => header.map((f) => dataCell(t[f]))));
  });

  it('--fields selects the array fields too (select-only, contract §5)', async () => {
    const recs = await listed([...list(), '--fields', 'id,features'], env);
    expect(recs.map((t) => Object.keys(t))).toEqual(all.map(() => ['id', 'features']));
    expect(recs.map((t) => t.features)).toEqual(all.map((t) => t.features));
  });

  it('--sort name:desc', async () => {
    const recs = await listed([...list(), '--sort', 'name:desc'], env);
    expect(ids(recs)).toEqual(ids([...all].sort((a, b) => ((a.name as string) < (b.name as string) ? 1 : -1))));
  });
});

describe('templates list bad flag values: exit 2 naming the flag', () => {
  itRejects(list, env, [
    [['--name-contains', ''], '--name-contains'],
    [['--sort', 'features'], '--sort'],
    [['--sort', 'product:desc'], '--sort'],
    [['--fields', 'id,body'], '--fields'],
    [['--take', '-1'], '--take'],
  ]);

  it('--product and --release are still required', async () => {
    expectUsage(await runCli(['templates', 'list', '--product', '1'], { env }), '--release');
  });
});

describe('lic templates list --product P --release R', () => {
  it('piped: one line per template, columns ID NAME CODE FORMAT FILE NAME SIGNING KEY DESCRIPTION', async () => {
    const r = await runCli(listRel(), { env });
    expect(r.code, r.stderr).toBe(0);
    const want = rowsOf(rel.p, rel.r);
    expect(want.length).toBeGreaterThan(1);
    expect(r.stdout).toBe(want.map(line).join('\n') + '\n');
  });

  it('on a terminal: a table with the column headers', async () => {
    const r = await runCli(listRel(), { env: { ...env, NO_COLOR: '1' }, tty: true });
    expect(r.code, r.stderr).toBe(0);
    const header = r.stdout.split('\n').find((l) => l.includes('SIGNING KEY'))!;
    for (const h of ['ID', 'NAME', 'CODE', 'FORMAT', 'FILE NAME', 'SIGNING KEY', 'DESCRIPTION']) expect(header).toContain(h);
    for (const t of rowsOf(rel.p, rel.r)) expect(r.stdout).toContain(t.code);
    expect(r.stdout).not.toContain('<?xml');
  });

  it('-o json prints the service body unchanged', async () => {
    const r = await runCli(listRel('-o', 'json'), { env });
    expect(r.code, r.stderr).toBe(0);
    const direct = await http(svc, 'GET', `/v1/products/${rel.p}/releases/${rel.r}/license-templates`, { key: svc.adminKey });
    expect(JSON.parse(r.stdout)).toEqual(direct.body);
  });

  it('--take/--skip page the list', async () => {
    const r = await runCli(listRel('--take', '1', '--skip', '1'), { env });
    expect(r.stdout).toBe(line(rowsOf(rel.p, rel.r)[1]!) + '\n');
  });

  it('a LicenseManager key may list; a Sales key gets exit 3', async () => {
    const lm = await runCli(listRel(), { env: envFor(svc, svc.issuedKeys.find((k) => k.role === 'LicenseManager')!.key) });
    expect(lm.code, lm.stderr).toBe(0);
    const sales = await runCli(listRel(), { env: envFor(svc, svc.issuedKeys.find((k) => k.role === 'Sales')!.key) });
    expect(sales.code).toBe(3);
    expect(sales.stderr).toMatch(/role Sales.*HTTP 403/);
  });

  it('unknown product, unknown release, or a release of another product → exit 4', async () => {
    const maxP = svc.db.prepare('SELECT max(id) FROM products').pluck().get() as number;
    const maxR = svc.db.prepare('SELECT max(id) FROM releases').pluck().get() as number;
    const foreign = svc.db.prepare('SELECT id FROM releases WHERE product_id <> ? LIMIT 1').pluck().get(rel.p) as number;
    for (const [p, r, msg] of [
      [maxP + 1, rel.r, `no product with id ${maxP + 1}`],
      [rel.p, maxR + 1, `has no release with id ${maxR + 1}`],
      [rel.p, foreign, `has no release with id ${foreign}`],
    ] as const) {
      const res = await runCli(['templates', 'list', '--product', String(p), '--release', String(r)], { env });
      expect(res.code).toBe(4);
      expect(res.stdout).toBe('');
      expect(res.stderr).toContain(msg);
    }
  });
});

describe('lic templates: usage errors (exit 2, nothing sent)', () => {
  let offline: Record<string, string>;
  beforeAll(async () => {
    offline = { LIC_BASE_URL: `http://127.0.0.1:${await closedPort()}`, LIC_API_KEY: 'api_000000000000000000000000' };
  });

  it.each([
    [['templates', 'list', '--release', '1'], "required option '--product <id>' not specified"],
    [['templates', 'list', '--product', '1'], "required option '--release <id>' not specified"],
  ])('%j → %s', async (args, msg) => {
    const r = await runCli(args, { env: offline });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(msg);
  });
});
