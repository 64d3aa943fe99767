/**
 * `lic resources list` through the list machinery: --type, --format, --name-contains, --all,
 * formats (seed demo); the columns and the size of the data, against the real service and
 * socket-level fakes; the table of a resource made from a real file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { reply, startFake } from '../../helpers/fake-server.js';
import { SHARED_DATA } from '../../helpers/shared-data.js';

import { csvRows, fullList, ids, itRejects, listed, ok, type Rec, requests } from '../../helpers/lists.js';
import { ndjson, useService } from '../../helpers/fixtures.js';
import { resourceSteps } from './steps.js';

const SNK = join(SHARED_DATA, 'Keys.snk');
const HTML = join(SHARED_DATA, 'new-license-email.html');
const haveData = existsSync(SNK) && existsSync(HTML);
if (!haveData) console.warn(`SKIPPED: resource round trips of real files need ${SHARED_DATA} (Keys.snk, new-license-email.html)`);

/** The select the default columns send (RESOURCE_COLUMN_FIELDS). */
const COLUMN_SELECT = 'id, name, type, dataFormat, code, dataSize, updatedAt, description';

let all: Rec[];
const LIST = ['resources', 'list'];
/** a name with the characters a filter literal must escape */
const ODD = 'Odd "quoted" \\ name';

const { svc, env } = useService({ seed: 'demo' });
beforeAll(async () => {
  // next to the demo's four: same type in another case, a second html e-mail, an odd name
  for (const [name, type, format] of [
    ['lower-case rsa', 'rsa', 'snk'],
    ['Welcome e-mail', 'email', 'html'],
    [ODD, 'email', 'txt'],
    ['Plain note', 'note', 'html'],
  ]) {
    await ok(['resources', 'create', '--name', name!, '--type', type!, '--format', format!], env);
  }
  all = await fullList(LIST, 'resources', env);
});

describe('resources list friendly flags: exactly the records a filter over the full list gives', () => {
  it('the full list holds the demo resources and the added ones', () => {
    const n = svc.db.prepare('SELECT count(*) FROM resources').pluck().get() as number;
    expect(all).toHaveLength(n);
    expect(n).toBeGreaterThanOrEqual(8);
  });

  it('--type T: every type present, exact and case-sensitive', async () => {
    const types = [...new Set(all.map((r) => r.type as string))];
    expect(types).toEqual(expect.arrayContaining(['RSA', 'rsa', 'email']));
    for (const t of types) {
      const want = all.filter((r) => r.type === t);
      expect(ids(await listed([...LIST, '--type', t], env)), `--type ${t}`).toEqual(ids(want));
    }
    expect(await listed([...LIST, '--type', 'Email'], env)).toEqual([]);
  });

  it('--format F: every data format present', async () => {
    const formats = [...new Set(all.map((r) => r.dataFormat as string))];
    expect(formats.length).toBeGreaterThan(2);
    for (const f of formats) {
      const want = all.filter((r) => r.dataFormat === f);
      expect(ids(await listed([...LIST, '--format', f], env)), `--format ${f}`).toEqual(ids(want));
    }
  });

  it('--name-contains TEXT: substring, case-sensitive; quotes and backslashes are matched literally', async () => {
    for (const text of ['e-mail', 'E-mail', 'key', '"quoted" \\', 'Odd "', ' or 1 = 1']) {
      const want = all.filter((r) => (r.name as string).includes(text));
      expect(ids(await listed([...LIST, '--name-contains', text], env)), `--name-contains ${text}`).toEqual(ids(want));
    }
    expect(ids(await listed([...LIST, '--name-contains', '"quoted" \\'], env))).toEqual(ids(all.filter((r) => r.name === ODD)));
  });

  it('flags AND-ed with each other and with --where; the filter sent quotes every value', async () => {
    const r = await ok([...LIST, '--type', 'email', '--format', 'html', '--where', 'Id > 1', '--verbose', '-o', 'ndjson'], env);
    const want = all.filter((x) => x.type === 'email' && x.dataFormat === 'html' && (x.id as number) > 1);
    expect(want.length).toBeGreaterThan(1);
    expect(ids(ndjson(r.stdout))).toEqual(ids(want));
    expect(requests(r.stderr)[0]!.searchParams.get('filter')).toBe('(Type = "email") and (DataFormat = "html") and (Id > 1)');
  });
});

describe('resources list --all and formats', () => {
  it('--all -o ndjson: every resource exactly once, in id order, over several pages by id', async () => {
    const r = await ok([...LIST, '--all', '--take', '3', '-o', 'ndjson', '--verbose'], env);
    const recs = ndjson<Rec>(r.stdout);
    const db = svc.db.prepare('SELECT id FROM resources ORDER BY id').pluck().all();
    expect(ids(recs)).toEqual(db);
    expect(new Set(ids(recs)).size).toBe(recs.length);
    const reqs = requests(r.stderr);
    expect(reqs.length).toBe(Math.ceil(db.length / 3) + (db.length % 3 === 0 ? 1 : 0));
    expect(reqs[1]!.searchParams.get('filter')).toBe(`id > ${recs[2]!.id}`);
  });

  it('never the data or the password in list output', async () => {
    const r = await ok([...LIST, '--all', '-o', 'ndjson'], env);
    for (const rec of ndjson<Rec>(r.stdout)) {
      expect(rec.password ?? '').toBe('');
    }
  });

  it('-o csv: a header row of the wire field names (no data, no password), and parses back to the records', async () => {
    const r = await ok([...LIST, '--all', '-o', 'csv'], env);
    const { header, rows } = csvRows(r.stdout);
    expect(header).toEqual(CSV_FIELDS);
    expect(rows.map((row) => [Number(row[0]), row[1], row[2], row[8]])).toEqual(all.map((x) => [x.id, x.name, x.type, x.dataFormat]));
    expect(rows.some((row) => row[1] === ODD)).toBe(true);
  });

  it('-o csv --fields: exactly those columns, in the service spelling, filtered by a flag', async () => {
    const r = await ok([...LIST, '--type', 'email', '--fields', 'ID,name,DATASIZE', '-o', 'csv'], env);
    const { header, rows } = csvRows(r.stdout);
    expect(header).toEqual(['id', 'name', 'dataSize']);
    expect(rows.map((row) => Number(row[0]))).toEqual(ids(all.filter((x) => x.type === 'email')));
  });

  it('--sort name:desc with --limit', async () => {
    const recs = await listed([...LIST, '--sort', 'name:desc', '--limit', '3'], env);
    const want = [...all].sort((a, b) => ((a.name as string) < (b.name as string) ? 1 : -1)).slice(0, 3);
    expect(ids(recs)).toEqual(ids(want));
  });
});

/** csv/tsv without --fields: every declared field but the data and the (always empty) password */
const CSV_FIELDS = ['id', 'name', 'type', 'code', 'description', 'source', 'createdAt', 'updatedAt', 'dataFormat', 'dataSize'];
const CSV_SELECT = CSV_FIELDS.join(', ');
const SIZE = CSV_FIELDS.indexOf('dataSize');

describe("resources list without --fields: the columns' fields only for table, the fields but data for csv/tsv, whole records for json", () => {
  /** id → bytes of the stored data, from the database itself */
  const sizes = () =>
    new Map((svc.db.prepare('SELECT id, length(data) AS n FROM resources').all() as { id: number; n: number }[]).map((r) => [r.id, r.n]));

  it('a demo resource holds data, so SIZE has something to show', () => {
    expect([...sizes().values()].some((n) => n > 0)).toBe(true);
  });

  it.each([
    ['piped table', [] as string[]],
    ['csv', ['-o', 'csv']],
    ['tsv', ['-o', 'tsv']],
  ])('%s: select names the shown fields, never data; the size is the bytes of the data', async (_label, format) => {
    const r = await ok([...LIST, '--take', '1000', ...format, '--verbose'], env);
    const reqs = requests(r.stderr);
    expect(reqs).toHaveLength(1);
    const select = reqs[0]!.searchParams.get('select');
    expect(select).toBe(format.length ? CSV_SELECT : COLUMN_SELECT);
    expect(select!.split(', ')).not.toContain('data');
    const lines = r.stdout.trim().split('\n');
    const rows = format.length
      ? format[1] === 'csv'
        ? csvRows(r.stdout).rows
        : lines.slice(1).map((l) => l.split('\t'))
      : lines.map((l) => l.split('\t'));
    const want = sizes();
    expect(rows).toHaveLength(want.size);
    const col = format.length ? SIZE : 5;
    for (const row of rows) expect(Number(row[col]), `size of resource ${row[0]}`).toBe(want.get(Number(row[0])));
  });

  it('--all -o csv: every page selects the shown fields', async () => {
    const r = await ok([...LIST, '--all', '--take', '3', '-o', 'csv', '--verbose'], env);
    const reqs = requests(r.stderr);
    expect(reqs.length).toBeGreaterThan(1);
    for (const q of reqs) expect(q.searchParams.get('select')).toBe(CSV_SELECT);
    const want = sizes();
    const { rows } = csvRows(r.stdout);
    expect(rows.map((row) => [Number(row[0]), Number(row[SIZE])])).toEqual([...want.entries()].sort((a, b) => a[0] - b[0]));
  });

  it.each([['json'], ['ndjson']])('-o %s: no select, so the records come whole, data included', async (format) => {
    const r = await ok([...LIST, '--take', '1000', '-o', format, '--verbose'], env);
    expect(requests(r.stderr)[0]!.searchParams.has('select')).toBe(false);
    const recs = format === 'json' ? ((JSON.parse(r.stdout) as Rec).resources as Rec[]) : ndjson<Rec>(r.stdout);
    const want = sizes();
    expect(recs).toHaveLength(want.size);
    for (const rec of recs) {
      expect(typeof rec.data).toBe('string');
      expect(Buffer.from(rec.data as string, 'base64').length).toBe(want.get(rec.id as number));
    }
  });

  it('a service without dataSize (the original) that sends data anyway: dataSize is computed from the base64 data', async () => {
    // 5 bytes → "aGVsbG8=" (padded); 4 bytes, URL-safe, unpadded → "_-_-"; no data at all → empty
    const body = {
      success: true,
      resources: [
        { id: 1, name: 'a', data: 'aGVsbG8=' },
        { id: 2, name: 'b', data: '_-_-' },
        { id: 3, name: 'c' },
      ],
      totalResourcesCount: 3,
    };
    const fake = await startFake((sock) => reply(sock, 200, JSON.stringify(body)));
    try {
      const r = await runCli([...LIST, '-o', 'csv'], { env: { LIC_BASE_URL: fake.url, LIC_API_KEY: 'api_000000000000000000000000' } });
      expect(r.code, r.stderr).toBe(0);
      expect(new URL(fake.requests[0]!.path, fake.url).searchParams.get('select')).toBe(CSV_SELECT);
      // no data at all: the documented default 0; the data itself never reaches the csv
      const { header, rows } = csvRows(r.stdout);
      expect(header).toEqual(CSV_FIELDS);
      expect(rows.map((row) => [row[0], row[SIZE]])).toEqual([
        ['1', '5'],
        ['2', '3'],
        ['3', '0'],
      ]);
    } finally {
      await fake.close();
    }
  });
});

describe('resources list against a service that refuses dataSize in select', () => {
  it('retries once asking for data instead, and SIZE is measured from it', async () => {
    const body = { success: true, resources: [{ id: 1, name: 'a', data: 'aGVsbG8=' }], totalResourcesCount: 1 };
    const fake = await startFake((sock, req) =>
      new URL(req.path, 'http://x').searchParams.get('select')?.includes('dataSize')
        ? reply(sock, 400, JSON.stringify({ success: false, code: 3, message: 'select: unknown field dataSize' }))
        : reply(sock, 200, JSON.stringify(body)),
    );
    try {
      const r = await runCli([...LIST, '-o', 'csv'], { env: { LIC_BASE_URL: fake.url, LIC_API_KEY: 'api_000000000000000000000000' } });
      expect(r.code, r.stderr).toBe(0);
      const selects = fake.requests.map((q) => new URL(q.path, fake.url).searchParams.get('select'));
      expect(selects).toEqual([CSV_SELECT, CSV_SELECT.replace(', dataSize', ', data')]);
      expect(csvRows(r.stdout).rows.map((row) => [row[0], row[SIZE]])).toEqual([['1', '5']]);
    } finally {
      await fake.close();
    }
  });
});

describe('resources list bad flag values: exit 2 naming the flag, nothing sent', () => {
  itRejects(() => LIST, env, [
    [['--type', ''], '--type'],
    [['--format', ''], '--format'],
    [['--name-contains', ''], '--name-contains'],
    [['--fields', 'id,bogus'], '--fields'],
    [['--sort', 'name:up'], '--sort'],
    [['--sort', 'bogus'], '--sort'],
    [['--sort', 'data'], '--sort'],
    [['--sort', 'password:desc'], '--sort'],
    [['--take', '1001'], '--take'],
    [['--limit', '-1'], '--limit'],
  ]);

  it('--sort on a select-only field says which fields cannot be sorted', async () => {
    const r = await runCli([...LIST, '--sort', 'Data'], { env });
    expect(r.stderr).toContain('not sortable: password, data');
  });
});

describe.skipIf(!haveData)('round trips of real files (Keys.snk, new-license-email.html)', () => {
  // a service of its own (not the demo's above): the resource made here changes no list there
  const own = useService();
  const { unique, createVia } = resourceSteps(own.svc, own.env, tempDir('lic-res-'));
  const env = own.env;

  it('the list table shows ID, NAME, TYPE, FORMAT, CODE, SIZE, UPDATED, DESCRIPTION with the size in bytes', async () => {
    const name = unique('table');
    const id = await createVia([
      '--name',
      name,
      '--type',
      'RSA',
      '--format',
      'SNK',
      '--code',
      `${name}-c`,
      '--description',
      'the key',
      '--data-file',
      SNK,
    ]);
    const piped = await runCli(['resources', 'list', '--take', '1000'], { env });
    expect(piped.code).toBe(0);
    const row = piped.stdout
      .split('\n')
      .find((l) => l.startsWith(`${id}\t`))!
      .split('\t');
    expect(row.slice(0, 6)).toEqual([String(id), name, 'RSA', 'SNK', `${name}-c`, '596']);
    expect(row[6]).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(row[7]).toBe('the key');
    const tty = await runCli(['resources', 'list', '--take', '1000'], { env: { ...env, NO_COLOR: '1' }, tty: true });
    // the header is the first line (no box around the table)
    expect(tty.stdout.split('\n')[0]).toMatch(/ID\W+NAME\W+TYPE\W+FORMAT\W+CODE\W+SIZE\W+UPDATED\W+DESCRIPTION/);
    expect(tty.stdout).toMatch(new RegExp(`\\b${id}\\W+${name}\\W+RSA\\W+SNK\\W+${name}-c\\W+596\\b`));
  });
});
