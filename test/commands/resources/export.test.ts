/**
 * `lic resources export`: one JSON record a line from a real service seeded with the demo
 * dataset, every field that recreates a resource and never a password; the filters of
 * resources list; a resource without a code left out and named; -o refused but for the
 * bundle's ndjson; the options the verb seam hands the run function. The import of such
 * a bundle is in import.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { envFor, runCli } from '../../helpers/cli.js';
import { http, type TestService } from '../../helpers/service.js';
import { useService } from '../../helpers/fixtures.js';
import { parseVerb } from '../../helpers/verb-seam.js';

const { svc: src } = useService({ seed: 'demo' });

const fromSrc = (args: string[]) => runCli(args, { env: envFor(src, src.adminKey) });

interface StoredResource {
  id: number;
  name: string;
  type: string;
  code: string;
  description: string;
  source: string;
  dataFormat: string;
  data: Buffer;
}
const stored = (svc: TestService): StoredResource[] =>
  svc.db
    .prepare('SELECT id, name, type, code, description, source, data_format AS dataFormat, data FROM resources ORDER BY id')
    .all() as StoredResource[];
const lines = (text: string) => text.trimEnd().split('\n');

describe('export', () => {
  it('writes one JSON record per line with every field that recreates the resource, never a password', async () => {
    // stderr a terminal: the success note shows
    const r = await runCli(['resources', 'export'], { env: envFor(src, src.adminKey), stderrTTY: true });
    expect(r.code, r.stderr).toBe(0);
    const bundle = r.stdout;
    const records = lines(bundle).map((l) => JSON.parse(l));
    const expected = stored(src);
    expect(records).toHaveLength(expected.length);
    records.forEach((rec, i) => {
      const s = expected[i]!;
      expect(Object.keys(rec)).toEqual(['name', 'type', 'code', 'description', 'source', 'dataFormat', 'data']);
      expect(rec).toEqual({
        name: s.name,
        type: s.type,
        code: s.code,
        description: s.description,
        source: s.source,
        dataFormat: s.dataFormat,
        data: s.data.toString('base64'),
      });
    });
    expect(bundle).not.toMatch(/password/i);
    expect(r.stderr).toContain(`Exported ${expected.length} resource(s).`);
  });

  it('takes the filters of resources list (--type, --format, --name-contains, --where)', async () => {
    const emails = await fromSrc(['resources', 'export', '--type', 'email']);
    expect(emails.code, emails.stderr).toBe(0);
    const codes = lines(emails.stdout).map((l) => JSON.parse(l).code);
    expect(codes).toEqual(
      stored(src)
        .filter((s) => s.type === 'email')
        .map((s) => s.code),
    );
    expect(codes.length).toBeGreaterThan(1);
    const one = await fromSrc(['resources', 'export', '--type', 'email', '--where', `Code = "${codes[1]}"`]);
    expect(lines(one.stdout).map((l) => JSON.parse(l).code)).toEqual([codes[1]]);
    const byName = await fromSrc(['resources', 'export', '--name-contains', 'signing', '--format', 'SNK']);
    expect(lines(byName.stdout).map((l) => JSON.parse(l).type)).toEqual(['RSA']);
  });

  it('leaves out a resource without a code, naming it and the command that gives it one', async () => {
    const made = await http(src, 'POST', '/v1/resources', {
      key: src.adminKey,
      body: { resource: { name: 'no code here', type: 'email', dataFormat: 'html', data: Buffer.from('<p>x</p>').toString('base64') } },
    });
    const id = made.body.resourceId as number;
    try {
      const r = await fromSrc(['resources', 'export', '--name-contains', 'no code']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`${id} "no code here"`);
      expect(r.stderr).toContain('lic resources update ID --code CODE');
    } finally {
      await http(src, 'DELETE', `/v1/resources/${id}`, { key: src.adminKey });
    }
  });

  it('a PKCS #12 resource is exported without its password and named on stderr as needing it set again', async () => {
    const made = await http(src, 'POST', '/v1/resources', {
      key: src.adminKey,
      body: {
        resource: { name: 'pfx export', type: 'RSA', code: 'pfx-export', dataFormat: 'PFX', data: 'MIIBAA==', password: 's3cret-pfx' },
      },
    });
    const id = made.body.resourceId as number;
    try {
      const r = await fromSrc(['resources', 'export', '--format', 'PFX']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ code: 'pfx-export', dataFormat: 'PFX', data: 'MIIBAA==' });
      expect(r.stdout + r.stderr).not.toContain('s3cret-pfx');
      expect(r.stderr).toContain('passwords are never exported; after the import set the password of pfx-export');
    } finally {
      await http(src, 'DELETE', `/v1/resources/${id}`, { key: src.adminKey });
    }
  });

  it('-o json or csv is exit 2 naming the format (the bundle is ndjson)', async () => {
    for (const f of ['json', 'csv']) {
      const r = await fromSrc(['resources', 'export', '-o', f]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`lic: option '-o, --output <format>' argument '${f}' is invalid. Allowed choices are table, ndjson.\n`);
      expect(r.stdout).toBe('');
    }
  });
});

describe('options → the run function', () => {
  it.each<[string[], unknown]>([
    [['resources', 'export'], {}],
    [
      ['resources', 'export', '--type', 'RSA', '--format', 'SNK', '--name-contains', 'key', '--where', 'Id > 1'],
      { type: 'RSA', format: 'SNK', nameContains: 'key', where: 'Id > 1' },
    ],
  ])('%j', async (argv, expected) => {
    expect(await parseVerb(argv)).toEqual({ opts: expected });
  });
});

describe('usage errors name the flag or argument', () => {
  it.each<[string[], string]>([
    [['resources', 'export', '--type', ''], "option '--type <type>' argument '' is invalid"],
    [['resources', 'export', '--format', ''], "option '--format <format>' argument '' is invalid"],
    [['resources', 'export', '--limit', '3'], "unknown option '--limit'"],
  ])('%j', async (argv, message) => {
    const r = await parseVerb(argv);
    expect(r.opts).toBeUndefined();
    expect(r.error).toContain(message);
  });
});
