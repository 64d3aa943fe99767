/**
 * `lic log list` in-process against the real service on a clock the test moves (contract
 * §6): order, --level, --since/--until, paging, -o json, who may read, usage errors.
 * `--all` (and the friendly filter flags over a big log) is in list.all.test.ts.
 */
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { envFor, runCli } from '../../helpers/cli.js';
import { useService } from '../../helpers/fixtures.js';
import { http, type TestService } from '../../helpers/service.js';
import { H, T0, clockedService, lic, type Entry } from './_shared.js';

describe('log list', () => {
  let svc: TestService;
  let clock: { t: number };
  let keyIds: number[];
  beforeAll(async () => {
    ({ svc, clock } = await clockedService());
    keyIds = [];
    // three writes an hour apart (10:00, 11:00, 12:00), then a failed authentication at 13:00
    for (let i = 0; i < 3; i++) {
      clock.t = T0 + i * H;
      const r = await lic(svc, ['keys', 'create', '--perm', '1', '--name', `k${i}`, '-o', 'json']);
      keyIds.push(JSON.parse(r.stdout).apiKeyId);
    }
    clock.t = T0 + 3 * H;
    expect((await lic(svc, ['keys', 'list'], { env: { LIC_API_KEY: 'api_000000000000000000000000' } })).code).toBe(3);
  });
  afterAll(() => svc.close());

  it('newest first, tab-separated when piped: id, time, level, message', async () => {
    const r = await lic(svc, ['log', 'list']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe('4\t2025-01-18T13:00:00.000Z\tWarning\tAuthentication failed for GET /v1/api-keys: unknown API key');
    expect(lines[3]).toBe(`1\t2025-01-18T10:00:00.000Z\tInformation\tPOST /v1/api-keys by API key 1 of user admin, record ${keyIds[0]}`);
    expect(lines.map((l) => l.split('\t')[1])).toEqual(['13', '12', '11', '10'].map((h) => `2025-01-18T${h}:00:00.000Z`));
  });

  it('entries with the same time stamp: higher id first', async () => {
    const { svc: s2 } = await clockedService();
    try {
      for (let i = 0; i < 3; i++) await lic(s2, ['keys', 'create', '--perm', '1']);
      const r = await lic(s2, ['log', 'list']);
      expect(
        r.stdout
          .trimEnd()
          .split('\n')
          .map((l) => l.split('\t')[0]),
      ).toEqual(['3', '2', '1']);
    } finally {
      await s2.close();
    }
  });

  it.each(['Warning', 'warning', 'WARNING'])('--level %s: only Warning entries', async (level) => {
    const r = await lic(svc, ['log', 'list', '--level', level, '-o', 'json']);
    const body = JSON.parse(r.stdout);
    expect(body.totalLogEntriesCount).toBe(1);
    expect(body.logEntries.map((e: Entry) => e.level)).toEqual(['Warning']);
  });

  it('--level Information: the three writes; --level Error: none (exit 0, empty output)', async () => {
    const info = await lic(svc, ['log', 'list', '--level', 'information']);
    expect(
      info.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t')[0]),
    ).toEqual(['3', '2', '1']);
    const err = await lic(svc, ['log', 'list', '--level', 'Error']);
    expect(err.code).toBe(0);
    expect(err.stdout).toBe('');
  });

  it('--since is inclusive and --until exclusive', async () => {
    const ids = async (...flags: string[]) =>
      (await lic(svc, ['log', 'list', ...flags])).stdout
        .trimEnd()
        .split('\n')
        .filter(Boolean)
        .map((l) => Number(l.split('\t')[0]));
    expect(await ids('--since', '2025-01-18T11:00:00Z', '--until', '2025-01-18T12:00:00Z')).toEqual([2]);
    expect(await ids('--since', '2025-01-18T11:00:00.001Z')).toEqual([4, 3]);
    expect(await ids('--until', '2025-01-18T11:00:00.001Z')).toEqual([2, 1]);
    expect(await ids('--since', '2025-01-18T12:00:00+01:00')).toEqual([4, 3, 2]);
    expect(await ids('--since', '2025-01-18', '--until', '2025-01-19')).toEqual([4, 3, 2, 1]);
    expect(await ids('--until', '2025-01-18')).toEqual([]);
  });

  it('relative --since counts back from the CLI clock', async () => {
    const now = () => new Date(T0 + 3 * H + 30 * 60_000); // 13:30
    const r = await lic(svc, ['log', 'list', '--since', '90m'], { now }); // from 12:00
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t')[0]),
    ).toEqual(['4', '3']);
    const d = await lic(svc, ['log', 'list', '--since', '1d'], { now });
    expect(d.stdout.trimEnd().split('\n')).toHaveLength(4);
  });

  it('--take and --skip page the newest-first order; the total ignores paging', async () => {
    const r = await lic(svc, ['log', 'list', '--take', '2', '--skip', '1', '-o', 'json']);
    const body = JSON.parse(r.stdout);
    expect(body.logEntries.map((e: Entry) => e.id)).toEqual([3, 2]);
    expect(body.totalLogEntriesCount).toBe(4);
    const zero = JSON.parse((await lic(svc, ['log', 'list', '--take', '0', '-o', 'json'])).stdout);
    expect(zero.logEntries).toEqual([]);
    expect(zero.totalLogEntriesCount).toBe(4);
  });

  it('-o json prints the body exactly as the service sent it', async () => {
    const r = await lic(svc, ['log', 'list', '-o', 'json']);
    const raw = await http(svc, 'GET', '/v1/log', { key: svc.adminKey });
    expect(r.stdout).toBe(`${JSON.stringify(raw.body)}\n`);
  });

  it('a LicenseManager or Sales key may read the log', async () => {
    const { addUserWithKey } = await import('../../helpers/service.js');
    for (const role of ['LicenseManager', 'Sales']) {
      const key = await addUserWithKey(svc, `reader-${role}`, role, 1);
      const r = await runCli(['log', 'list', '--level', 'Warning'], { env: envFor(svc, key) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Authentication failed');
    }
  });
});

describe('log list usage errors (exit 2, naming the flag and the allowed values)', () => {
  const { env } = useService();

  it.each([
    [['--sort', 'level:up'], /--sort.*unknown sort direction "up" for level; allowed: asc, desc/],
    [
      ['--sort', 'color'],
      /--sort.*unknown field "color" of log entries; fields: id, message, messageTemplate, level, timeStamp, exception, properties/,
    ],
    [['--fields', 'id,,message'], /--fields.*expected comma-separated field names/],
    [['--fields', 'id,secret'], /--fields.*unknown field "secret"/],
    [['--limit', '-1'], /--limit.*expected an integer 0\.\.2147483647/],
    [['--take', '5000'], /--take.*expected an integer 0\.\.1000/],
    [['--all', '--take', '0'], /--take 0 asks for no records per page/],
    [['-o', 'xml'], /--output.*Allowed choices are table, json, ndjson, csv, tsv/],
  ])('%j', async (args, message) => {
    const r = await runCli(['log', 'list', ...args], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});
