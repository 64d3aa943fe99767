/** `lic resources list` through the list machinery: --type, --format, --name-contains, --all, formats (seed demo). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli } from '../../helpers/cli.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { csvRows, expectUsage, fullList, ids, listed, ok, requests, type Rec } from './lists.js';

let svc: TestService;
let env: Record<string, string>;
let all: Rec[];
const LIST = ['resources', 'list'];
/** a name with the characters a filter literal must escape */
const ODD = 'Odd "quoted" \\ name';

beforeAll(async () => {
  svc = await startTestService({ seed: 'demo' });
  env = envFor(svc, svc.adminKey);
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
afterAll(() => svc?.close());

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
    expect(ids(r.stdout.trim().split('\n').map((l) => JSON.parse(l)))).toEqual(ids(want));
    expect(requests(r.stderr)[0]!.searchParams.get('filter')).toBe('(Type = "email") and (DataFormat = "html") and (Id > 1)');
  });
});

describe('resources list --all and formats', () => {
  it('--all -o ndjson: every resource exactly once, in id order, over several pages by id', async () => {
    const r = await ok([...LIST, '--all', '--take', '3', '-o', 'ndjson', '--verbose'], env);
    const recs = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Rec);
    const db = svc.db.prepare('SELECT id FROM resources ORDER BY id').pluck().all();
    expect(ids(recs)).toEqual(db);
    expect(new Set(ids(recs)).size).toBe(recs.length);
    const reqs = requests(r.stderr);
    expect(reqs.length).toBe(Math.ceil(db.length / 3) + (db.length % 3 === 0 ? 1 : 0));
    expect(reqs[1]!.searchParams.get('filter')).toBe(`id > ${recs[2]!.id}`);
  });

  it('never the data or the password in list output', async () => {
    const r = await ok([...LIST, '--all', '-o', 'ndjson'], env);
    for (const rec of r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Rec)) {
      expect(rec.password ?? '').toBe('');
    }
  });

  it('-o csv: a header row of the table columns, and parses back to the records', async () => {
    const r = await ok([...LIST, '--all', '-o', 'csv'], env);
    const { header, rows } = csvRows(r.stdout);
    expect(header).toEqual(['ID', 'NAME', 'TYPE', 'FORMAT', 'CODE', 'SIZE', 'UPDATED', 'DESCRIPTION']);
    expect(rows.map((row) => [Number(row[0]), row[1], row[2], row[3]])).toEqual(all.map((x) => [x.id, x.name, x.type, x.dataFormat]));
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

describe('resources list bad flag values: exit 2 naming the flag, nothing sent', () => {
  it.each([
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
  ])('%j', async (args, flag) => {
    const r = await runCli([...LIST, ...args, '--verbose'], { env });
    expectUsage(r, flag);
    expect(requests(r.stderr)).toEqual([]);
  });

  it('--sort on a select-only field says which fields cannot be sorted', async () => {
    const r = await runCli([...LIST, '--sort', 'Data'], { env });
    expect(r.stderr).toContain('not sortable: password, data');
  });
});
