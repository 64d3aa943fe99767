// Cross-cutting: machine formats, --fields and --raw as every list verb takes them; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * Machine formats are raw and the global flags around them: gh's
 * `--json id,name` as `-o json --fields id,name`, bare `--json` anywhere, `--raw` only
 * with json; csv/tsv carry wire field names and raw values (permissions 7, booleans).
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

import { useService } from '../../helpers/fixtures.js';

const { env } = useService({ seed: 'demo' });

describe('--json FIELDS', () => {
  it('is -o json --fields FIELDS: the same output, fields in the order given', async () => {
    const a = await runCli(['keys', 'list', '--json', 'name,id'], { env });
    const b = await runCli(['keys', 'list', '-o', 'json', '--fields', 'name,id'], { env });
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    const body = JSON.parse(a.stdout) as { apiKeys: Record<string, unknown>[] };
    expect(body.apiKeys.length).toBeGreaterThan(0);
    expect(body.apiKeys.every((k) => Object.keys(k).join() === 'name,id')).toBe(true);
  });

  it('bare --json still works before the command, after it, and before a verb operand', async () => {
    for (const args of [
      ['--json', 'keys', 'list'],
      ['keys', 'list', '--json'],
      ['keys', '--json', 'list'],
      ['--json', 'resources', 'get', '1'],
    ]) {
      const r = await runCli(args, { env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(() => JSON.parse(r.stdout)).not.toThrow();
    }
  });

  it('an unknown field is a usage error naming --json and the allowed fields; nothing sent', async () => {
    const r = await runCli(['keys', 'list', '--json', 'id,bogus', '--verbose'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^lic: --json: unknown field "bogus" of API keys; fields: id, name, ownerId/m);
    expect(r.stderr).not.toContain('> GET');
  });

  it('with --fields as well: a usage error naming both', async () => {
    const r = await runCli(['keys', 'list', '--json', 'id', '--fields', 'name'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--json FIELDS and --fields both choose the fields');
  });

  it('applies to a single record too (resources get)', async () => {
    const r = await runCli(['resources', 'get', '1', '--json', 'id,name'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(Object.keys(JSON.parse(r.stdout).resources[0])).toEqual(['id', 'name']);
  });
});

describe('--raw', () => {
  it.each([['csv'], ['tsv'], ['ndjson'], ['table']])('with -o %s: a usage error naming both flags, nothing sent', async (format) => {
    const r = await runCli(['keys', 'list', '--raw', '-o', format, '--verbose'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--raw prints the service's JSON body untouched: it goes with -o json or --json, not -o ${format}`);
    expect(r.stderr).not.toContain('> GET');
    expect(r.stdout).toBe('');
  });

  it('with --json: the body as the service sent it', async () => {
    const r = await runCli(['keys', 'list', '--json', '--raw'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).apiKeys.length).toBeGreaterThan(0);
  });
});

describe('csv and tsv are raw', () => {
  it('keys: wire names as header, permissions as the number, revoked true/false, no display columns', async () => {
    const r = await runCli(['keys', 'list', '-o', 'csv'], { env });
    expect(r.code, r.stderr).toBe(0);
    const [head, ...rows] = parseCsv(r.stdout) as string[][];
    expect(head!.join()).toBe('id,name,ownerId,permissions,description,createdAt,expireDate,revoked,keyPrefix');
    const admin = rows.find((c) => c[2] === 'admin' && c[3] === '7')!;
    expect(admin[3]).toBe('7');
    expect(admin[7]).toMatch(/^(true|false)$/);
  });

  it('resources get -o tsv: one record, wire names and raw values, no data (resource 1 is an RSA/SNK key: its key size and token too)', async () => {
    const r = await runCli(['resources', 'get', '1', '-o', 'tsv'], { env });
    expect(r.code, r.stderr).toBe(0);
    const [head, row] = r.stdout.trimEnd().split('\n');
    expect(head!.split('\t')).toEqual([
      'id',
      'name',
      'type',
      'code',
      'description',
      'source',
      'createdAt',
      'updatedAt',
      'dataFormat',
      'dataSize',
      'keySize',
      'publicKeyToken',
    ]);
    expect(row!.split('\t')[0]).toBe('1');
    expect(row!.split('\t').at(-1)).toMatch(/^[0-9a-f]{16}$/);
    expect(Number(row!.split('\t')[9])).toBeGreaterThan(0);
  });

  it('resources get -o ndjson: the record itself on one line', async () => {
    const r = await runCli(['resources', 'get', '1', '-o', 'ndjson'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(2);
    expect(JSON.parse(r.stdout).id).toBe(1);
  });
});
