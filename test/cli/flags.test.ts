// Cross-cutting: enum values, --json and contradicting output flags across verbs; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * Flag handling across verbs against the real service: enum values in any
 * case reach the service as their canonical spelling, `--json` agrees with `-o json`,
 * and output flags that contradict each other are usage errors naming both, with nothing
 * sent (the key list and the log stay as they were).
 */
import { describe, expect, it } from 'vitest';
import { envFor, runCli, type RunOptions } from '../helpers/cli.js';
import { http } from '../helpers/service.js';
import { useService } from '../helpers/fixtures.js';

const { svc } = useService();

const lic = (args: string[], o: RunOptions = {}) => runCli(args, { ...o, env: { ...envFor(svc, svc.adminKey), ...o.env } });

describe('enum values in any case', () => {
  it('-o JSON / -o Json / --output NDJSON print what -o json / ndjson print', async () => {
    const want = await lic(['keys', 'list', '-o', 'json']);
    expect(want.code).toBe(0);
    for (const v of ['JSON', 'Json']) expect((await lic(['keys', 'list', '-o', v])).stdout).toBe(want.stdout);
    expect((await lic(['keys', 'list', '--json'])).stdout).toBe(want.stdout);
    expect((await lic(['--json', '-o', 'json', 'keys', 'list'])).stdout).toBe(want.stdout);
    const nd = await lic(['keys', 'list', '--output', 'NDJSON']);
    expect(nd.code).toBe(0);
    expect(JSON.parse(nd.stdout.split('\n')[0]!)).toMatchObject({ id: 1, name: 'bootstrap' });
  });

  it('lic api -X post sends a POST (the assembly is created)', async () => {
    const r = await lic(['api', '/v1/assemblies', '-X', 'post', '--input', '-'], {
      stdin: '{"assembly":{"name":"CaseLib","version":"1.0.0.0"}}',
    });
    expect(r.code, r.stderr).toBe(0);
    const id = JSON.parse(r.stdout).assemblyId as number;
    const listed = await http(svc, 'GET', `/v1/assemblies?filter=${encodeURIComponent(`Id = ${id}`)}`, { key: svc.adminKey });
    expect(listed.body.assemblies[0]).toMatchObject({ name: 'CaseLib', version: '1.0.0.0' });
  });
});

describe('conflicting output flags: exit 2 naming both, nothing sent', () => {
  it.each([
    [['--json', '-o', 'csv', 'keys', 'create', '--perm', '1'], 'lic: --json and --output csv conflict: give one of them\n'],
    [['keys', 'create', '--perm', '1', '-o', 'tsv', '--json'], 'lic: --json and --output tsv conflict: give one of them\n'],
    [
      ['templates', 'show', '1', '--product', '1', '--release', '1', '-o', 'tsv'],
      // a format the verb does not declare (outputFormats) is commander's own refusal
      "lic: option '-o, --output <format>' argument 'tsv' is invalid. Allowed choices are table, json.\n",
    ],
    // a verb that prints nothing to format declares no -o
    [['completion', 'bash', '-o', 'csv'], "lic: unknown option '-o'\n"],
    [['-o', 'json', 'profile', 'use', 'x'], "lic: unknown option '-o'\n"],
    [
      ['resources', 'get', '1', '--data-out', '-', '-o', 'csv'],
      'lic: --data-out - and --output csv would both write to stdout; write the data to a file instead\n',
    ],
  ])('lic %j', async (args, message) => {
    const keys = (await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey })).body;
    const log = (await http(svc, 'GET', '/v1/log', { key: svc.adminKey })).body.totalLogEntriesCount;
    const r = await lic(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(message);
    expect((await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey })).body).toEqual(keys);
    // reads are not logged, so any write would show here
    expect((await http(svc, 'GET', '/v1/log', { key: svc.adminKey })).body.totalLogEntriesCount).toBe(log);
  });

  it('a format the verb can print still works: resources get -o CSV', async () => {
    const made = await lic(['resources', 'create', '--name', 'fmt', '--type', 'x', '--data-file', '-', '-o', 'json'], { stdin: 'abc' });
    const id = JSON.parse(made.stdout).resourceId as number;
    const csv = await lic(['resources', 'get', String(id), '-o', 'CSV']);
    expect(csv.code, csv.stderr).toBe(0);
    // the record's wire field names (raw machine formats)
    expect(csv.stdout.split('\n')[0]).toBe('id,name,type,code,description,source,createdAt,updatedAt,dataFormat,dataSize');
  });
});
