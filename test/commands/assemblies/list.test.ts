/**
 * `lic assemblies list` through the list machinery: --name, --public-key-token, --all, formats
 * (seed demo); the table on a terminal, --take/--skip checks and the roles that may list. The
 * --signed-by filter is list.signed-by.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';

import { dataCell } from '../../../src/cli/list/format.js';
import { envFor, runCli, tempDir } from '../../helpers/cli.js';
import { csvRows, fullList, ids, itRejects, listed, ok, type Rec, requests } from '../../helpers/lists.js';
import { ndjson, useService } from '../../helpers/fixtures.js';
import { addUserWithKey } from '../../helpers/service.js';
import { assemblySteps } from './steps.js';

let all: Rec[];
const LIST = ['assemblies', 'list'];

const { svc, env } = useService({ seed: 'demo' });
beforeAll(async () => {
  // next to the demo's: a second version of a demo name, one in another case, and two not strong-named
  await ok(['assemblies', 'create', '--name', 'Folio.Pdf', '--version', '9.0.0.0', '--public-key-token', '0bbe75556158122f'], env);
  await ok(['assemblies', 'create', '--name', 'folio.pdf', '--version', '1.0.0.0', '--public-key-token', 'null'], env);
  await ok(['assemblies', 'create', '--name', 'Unsigned.Tool', '--version', '1.2.3.4'], env);
  all = await fullList(LIST, 'assemblies', env);
});

describe('assemblies list friendly flags: exactly the records a filter over the full list gives', () => {
  it('the full list holds every assembly', () => {
    expect(ids(all)).toEqual(svc.db.prepare('SELECT id FROM assemblies ORDER BY id').pluck().all());
  });

  it('--name N: every name present, exact and case-sensitive', async () => {
    const names = [...new Set(all.map((a) => a.name as string))];
    expect(names.length).toBeGreaterThan(10);
    for (const n of names) {
      const want = all.filter((a) => a.name === n);
      expect(ids(await listed([...LIST, '--name', n], env)), `--name ${n}`).toEqual(ids(want));
    }
    expect(all.filter((a) => a.name === 'Folio.Pdf')).toHaveLength(2);
    expect(await listed([...LIST, '--name', 'Folio'], env)).toEqual([]);
  });

  it('--public-key-token HEX: every token present, in either case; null → the ones not strong-named', async () => {
    const tokens = [...new Set(all.map((a) => a.publicKeyToken as string))];
    expect(tokens).toContain('');
    for (const t of tokens) {
      const want = all.filter((a) => a.publicKeyToken === t);
      const flag = t === '' ? 'null' : t.toUpperCase();
      expect(ids(await listed([...LIST, '--public-key-token', flag], env)), `--public-key-token ${flag}`).toEqual(ids(want));
    }
    expect(all.filter((a) => a.publicKeyToken === '')).toHaveLength(2);
  });

  it('--name with --public-key-token and --where: AND-ed; the filter sent', async () => {
    const r = await ok(
      [
        ...LIST,
        '--name',
        'Folio.Pdf',
        '--public-key-token',
        '0BBE75556158122F',
        '--where',
        'Version != "8.1.0.0"',
        '--verbose',
        '-o',
        'ndjson',
      ],
      env,
    );
    const want = all.filter((a) => a.name === 'Folio.Pdf' && a.publicKeyToken === '0bbe75556158122f' && a.version !== '8.1.0.0');
    expect(want).toHaveLength(1);
    expect(ids(ndjson(r.stdout))).toEqual(ids(want));
    expect(requests(r.stderr)[0]!.searchParams.get('filter')).toBe(
      '(Name = "Folio.Pdf") and (PublicKeyToken = "0bbe75556158122f") and (Version != "8.1.0.0")',
    );
  });
});

describe('assemblies list --all and formats', () => {
  it('--all -o ndjson: every assembly exactly once, over pages by id', async () => {
    const r = await ok([...LIST, '--all', '--take', '4', '-o', 'ndjson', '--verbose'], env);
    const recs = ndjson<Rec>(r.stdout);
    expect(ids(recs)).toEqual(ids(all));
    expect(new Set(ids(recs)).size).toBe(all.length);
    expect(requests(r.stderr).length).toBeGreaterThan(3);
  });

  it('-o csv: the wire field names as header, raw values (culture "", mapping file 0), parses back', async () => {
    const r = await ok([...LIST, '--all', '-o', 'csv'], env);
    const { header, rows } = csvRows(r.stdout);
    expect(header).toEqual(['id', 'name', 'version', 'culture', 'publicKeyToken', 'mappingFileId', 'debugSymbolsKey']);
    expect(rows).toEqual(all.map((a) => header.map((f) => dataCell(a[f]))));
    expect(rows.some((row) => row[5] === '0')).toBe(true);
  });

  it('-o tsv --fields with --sort name', async () => {
    const r = await ok([...LIST, '--all', '--fields', 'name,version', '--sort', 'name', '-o', 'tsv'], env);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('name\tversion');
    const sorted = [...all].sort((a, b) =>
      (a.name as string) < (b.name as string) ? -1 : (a.name as string) > (b.name as string) ? 1 : (a.id as number) - (b.id as number),
    );
    expect(lines.slice(1)).toEqual(sorted.map((a) => `${a.name}\t${a.version}`));
  });
});

describe('assemblies list bad flag values: exit 2 naming the flag', () => {
  itRejects(() => LIST, env, [
    [['--public-key-token', 'b77a5c56'], '--public-key-token'],
    [['--public-key-token', 'zz7a5c561934e089'], '--public-key-token'],
    [['--name', ''], '--name'],
    [['--fields', 'name,token'], '--fields'],
    [['--sort', 'version:sideways'], '--sort'],
    [['--skip', 'x'], '--skip'],
  ]);
});

describe('list', () => {
  // a service of its own (not the demo's above): the records made here change no list there
  const { svc, env } = useService();
  const { unique, createVia } = assemblySteps(svc, env, tempDir('lic-asm-'));

  it('shows ID, NAME, VERSION, CULTURE, PUBLIC KEY TOKEN, MAPPING FILE on a terminal', async () => {
    const name = unique('Tbl');
    await createVia(['--name', name, '--assembly-version', '1.0.0.0', '--culture', 'fr', '--public-key-token', '0738eb9f132ed756']);
    const r = await runCli(['assemblies', 'list', '--take', '1000'], { env: { ...env, NO_COLOR: '1' }, tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ID\W+NAME\W+VERSION\W+CULTURE\W+PUBLIC KEY TOKEN\W+MAPPING FILE/);
    expect(r.stdout).toMatch(new RegExp(`${name.replace(/\./g, '\\.')}\\W+1\\.0\\.0\\.0\\W+fr\\W+0738eb9f132ed756`));
  });

  it('--take and --skip are checked before any request', async () => {
    for (const args of [
      ['--take', '1001'],
      ['--take', '-1'],
      ['--skip', 'x'],
    ]) {
      const r = await runCli(['assemblies', 'list', ...args], { env });
      expect(r.code).toBe(2);
    }
  });

  it('a Sales key gets exit 3 (assemblies are Administrator and LicenseManager only)', async () => {
    const sales = await addUserWithKey(svc, 'asm-sales', 'Sales', 7);
    const r = await runCli(['assemblies', 'list'], { env: envFor(svc, sales) });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('role Sales');
    const lm = await addUserWithKey(svc, 'asm-lm', 'LicenseManager', 7);
    expect((await runCli(['assemblies', 'list'], { env: envFor(svc, lm) })).code).toBe(0);
  });
});
