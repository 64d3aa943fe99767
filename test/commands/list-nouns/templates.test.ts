/** `lic templates list --product P --release R` through the list machinery: --name-contains, --all, formats (seed demo). */
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

import { dataCell } from '../../../src/cli/list/format.js';
import { csvRows, expectUsage, fullList, ids, itRejects, listed, ok, type Rec, requests } from './lists.js';
import { ndjson, useService } from '../../helpers/fixtures.js';

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
});

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
