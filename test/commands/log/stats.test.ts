/**
 * `lic log stats` against the real service (contract §5, §6): counts per level per bucket
 * from take=0 totals, the same through a service that leaves defaults out, the request
 * cap checked before anything is sent, the chart on a terminal and the numbers off it.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketCount, bucketFloor, buckets, registerLogStats, type LogStatsOptions } from '../../../src/commands/log/stats.js';
import { drawChart, splitCells } from '../../../src/commands/log/stats-chart.js';
import type { CommandDeps } from '../../../src/cli/deps.js';
import { displayWidth } from '../../../src/cli/table.js';
import { writeLog } from '../../../src/server/log-writer.js';
import { envFor, runCli, type RunOptions } from '../../helpers/cli.js';
import { startRecordingProxy, type RecordingProxy } from '../../helpers/recording-proxy.js';

import { closedPort } from '../../helpers/fake-server.js';
import { hasScript, spawnLic, spawnLicTty } from '../../helpers/spawn.js';
import { startTransformProxy, type TransformProxy } from '../../helpers/transform-proxy.js';
import { useService } from '../../helpers/fixtures.js';

if (!hasScript) console.warn('test/commands/log/stats.test.ts: util-linux `script` not found; skipping the pseudo-terminal test');

const NOW = new Date('2030-01-09T00:00:00.000Z');
const now = () => NOW;
let stripped: TransformProxy;
let recorder: RecordingProxy;

const { svc } = useService({ now });
beforeAll(async () => {
  // 2030-01-06 is a Sunday: by week the first bucket is that one day, the second Mon 7 .. Wed 9
  const at = (s: string, level: string, message = 'm') => writeLog(svc.db, new Date(s), level, message, {});
  at('2030-01-06T10:00:00Z', 'Information');
  at('2030-01-06T11:00:00Z', 'Information');
  at('2030-01-06T12:00:00Z', 'Warning', 'HTTP 401 from 10.0.0.7');
  at('2030-01-07T00:00:00Z', 'Error'); // on the boundary: belongs to the 7th
  at('2030-01-07T23:59:59.999Z', 'Information');
  at('2030-01-08T05:00:00Z', 'Fatal');
  at('2030-01-08T06:00:00Z', 'Warning', 'HTTP 401 from 10.0.0.8');
  at('2030-01-08T07:00:00Z', 'Warning');
  at('2030-01-05T23:59:59.999Z', 'Error'); // before --since
  stripped = await startTransformProxy(svc.url, 'strip-defaults');
  recorder = await startRecordingProxy(svc.url);
});
afterAll(async () => {
  await stripped.close();
  await recorder.close();
});

const lic = (args: string[], o: RunOptions & { url?: string } = {}) =>
  runCli(args, { now, ...o, env: { ...envFor({ url: o.url ?? svc.url }, svc.adminKey), ...o.env } });

const RANGE = ['--since', '2030-01-06', '--until', '2030-01-09'];

const EXPECTED_JSON = {
  since: '2030-01-06T00:00:00.000Z',
  until: '2030-01-09T00:00:00.000Z',
  by: 'day',
  levels: ['Verbose', 'Debug', 'Information', 'Warning', 'Error', 'Fatal'],
  buckets: [
    {
      start: '2030-01-06T00:00:00.000Z',
      end: '2030-01-07T00:00:00.000Z',
      verbose: 0,
      debug: 0,
      information: 2,
      warning: 1,
      error: 0,
      fatal: 0,
      total: 3,
    },
    {
      start: '2030-01-07T00:00:00.000Z',
      end: '2030-01-08T00:00:00.000Z',
      verbose: 0,
      debug: 0,
      information: 1,
      warning: 0,
      error: 1,
      fatal: 0,
      total: 2,
    },
    {
      start: '2030-01-08T00:00:00.000Z',
      end: '2030-01-09T00:00:00.000Z',
      verbose: 0,
      debug: 0,
      information: 0,
      warning: 2,
      error: 0,
      fatal: 1,
      total: 3,
    },
  ],
  totals: { verbose: 0, debug: 0, information: 3, warning: 3, error: 1, fatal: 1, total: 8 },
};

describe('log stats', () => {
  it('-o json: a count per level per UTC day, bucket edges as startDate (inclusive) / endDate (exclusive), and the totals', async () => {
    const r = await lic(['log', 'stats', ...RANGE, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(EXPECTED_JSON);
  });

  it('the same numbers through a service that leaves zeros and empty lists out', async () => {
    const r = await lic(['log', 'stats', ...RANGE, '-o', 'json'], { url: stripped.url });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(EXPECTED_JSON);
  });

  it('-o csv and a piped table: one row per bucket (csv with a header); nothing on stderr off a terminal', async () => {
    const csv = await lic(['log', 'stats', ...RANGE, '--by', 'week', '-o', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toBe(
      'start,end,verbose,debug,information,warning,error,fatal,total\n' +
        '2030-01-06T00:00:00.000Z,2030-01-07T00:00:00.000Z,0,0,2,1,0,0,3\n' +
        '2030-01-07T00:00:00.000Z,2030-01-09T00:00:00.000Z,0,0,1,2,1,1,5\n',
    );
    expect(csv.stderr).toBe('');
    const piped = await lic(['log', 'stats', ...RANGE, '--level', 'error,WARNING']);
    expect(piped.stdout).toBe(
      '2030-01-06T00:00:00.000Z\t2030-01-07T00:00:00.000Z\t1\t0\t1\n' +
        '2030-01-07T00:00:00.000Z\t2030-01-08T00:00:00.000Z\t0\t1\t1\n' +
        '2030-01-08T00:00:00.000Z\t2030-01-09T00:00:00.000Z\t2\t0\t2\n',
    );
  });

  it('sends buckets × levels GETs of take=0 with the level and --where in the filter, and nothing else', async () => {
    recorder.seen.length = 0;
    const r = await lic(['log', 'stats', ...RANGE, '--level', 'Warning,Error', '--where', 'Message.Contains("401")', '-o', 'ndjson'], {
      url: recorder.url,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).warning),
    ).toEqual([1, 0, 1]);
    expect(recorder.seen).toHaveLength(6);
    for (const s of recorder.seen) {
      const u = new URL(s.slice(4), 'http://x');
      expect(s.startsWith('GET /v1/log?')).toBe(true);
      expect(u.searchParams.get('take')).toBe('0');
      expect(u.searchParams.get('filter')).toMatch(/^\(Level = "(Warning|Error)"\) and \(Message\.Contains\("401"\)\)$/);
    }
  });

  it('keeps several counts in flight over plain http (the node:http pool is not one connection)', async () => {
    // a proxy on a real socket that holds each request 30 ms and counts how many it holds at once
    let inFlight = 0;
    let most = 0;
    const proxy = createServer((req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        const up = httpRequest(`${svc.url}${req.url}`, { method: req.method, headers: req.headers }, (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res).on('finish', () => inFlight--);
        });
        req.pipe(up);
      }, 30);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = proxy.address() as AddressInfo;
      const r = await lic(['log', 'stats', ...RANGE, '-o', 'json'], { url: `http://127.0.0.1:${port}` });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(EXPECTED_JSON);
      expect(most).toBeGreaterThan(1);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('more than 400 requests is exit 2 before anything is sent, suggesting a coarser --by', async () => {
    recorder.seen.length = 0;
    const r = await lic(['log', 'stats', '--since', '30d', '--by', 'hour'], { url: recorder.url });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('720 buckets × 6 levels = 4,320 requests, over the limit of 400: use --by day or --by week');
    expect(r.stdout).toBe('');
    expect(recorder.seen).toEqual([]);
  });

  it('Ctrl-C while counting: exit 130 and no partial numbers on stdout', async () => {
    const r = await lic(['log', 'stats', ...RANGE, '-o', 'csv'], {
      onInterrupt: (handler) => {
        setImmediate(() => handler('SIGINT'));
        return () => {};
      },
    });
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
  });

  it.each([
    [['--by', 'month'], "option '--by <size>' argument 'month' is invalid. Allowed choices are hour, day, week."],
    [['--level', 'Warn'], "option '--level <levels>' argument 'Warn' is invalid. expected one of Verbose"],
    [['--since', 'yesterday'], "option '--since <time>' argument 'yesterday' is invalid"],
    [['--since', '2030-01-08', '--until', '2030-01-07'], '--since must be earlier than --until'],
  ])('bad input %j is exit 2 naming the flag', async (flags, message) => {
    const r = await lic(['log', 'stats', ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
  });

  it('on a terminal: a colored stacked bar per bucket, fitted to the width, and a legend with totals', async () => {
    const r = await lic(['log', 'stats', ...RANGE], { tty: true, env: { COLUMNS: '60' } });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('Log entries per day (UTC), 2030-01-06 00:00Z to 2030-01-09 …');
    expect(lines.slice(1, 4).map((l) => l.slice(0, 10))).toEqual(['2030-01-06', '2030-01-07', '2030-01-08']);
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(60);
    // the busiest buckets (3 entries) fill the bar; Information green, Warning yellow
    expect(lines[1]).toContain('\u001b[32m');
    expect(lines[1]).toContain('\u001b[33m');
    expect(lines.slice(-2).join(' ')).toMatch(/Information 3 .*Warning 3 .*Error 1 .*Fatal 1/);
    expect(lines.at(-1)).toMatch(/total 8$/);
    const plain = await lic(['log', 'stats', ...RANGE, '--level', 'Warning,Fatal'], { tty: true, env: { NO_COLOR: '1', COLUMNS: '40' } });
    expect(plain.stdout).not.toContain('\u001b[');
    // 40 columns: label 10 + 2 + bar 25 + 2 + total 1; the 8th holds 2 Warnings and 1 Fatal: 17 + 8 cells
    expect(plain.stdout.split('\n')[3]).toBe(`2030-01-08  ${'▒'.repeat(17)}${'█'.repeat(8)}  3`);
  });

  it('the built CLI, piped: csv on stdout, exit 0', async () => {
    const env = { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey };
    const r = await spawnLic(['log', 'stats', ...RANGE, '--by', 'week', '-o', 'csv'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[2]).toBe('2030-01-07T00:00:00.000Z,2030-01-09T00:00:00.000Z,0,0,1,2,1,1,5');
  });

  it.skipIf(!hasScript)('the built CLI on a pseudo-terminal (needs util-linux `script`): the chart and a progress summary', async () => {
    const env = { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey };
    const t = await spawnLicTty(['log', 'stats', ...RANGE], { env });
    expect(t.code).toBe(0);
    expect(t.output).toContain('18 requests in');
    expect(t.output).toMatch(/2030-01-08 +.*█.* 3\r?\n/);
  });

  it('a stopped service: the first count alone fails after its retries (one chain of notices, not one per request in flight), exit 5', async () => {
    const env = { LIC_BASE_URL: `http://127.0.0.1:${await closedPort()}`, LIC_API_KEY: svc.adminKey, LIC_RETRIES: '2' };
    const r = await spawnLic(['log', 'stats', ...RANGE, '--by', 'day'], { env });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr.match(/retry \d\/2/g)).toEqual(['retry 1/2', 'retry 2/2']);
    expect(r.stderr).toMatch(/cannot connect/);
  });
});

describe('log stats options (the register seam, no network)', () => {
  const parse = async (args: string[]): Promise<LogStatsOptions> => {
    const program = new Command().exitOverride();
    let got: LogStatsOptions | undefined;
    const deps = { ctx: { now } as CommandDeps['ctx'], runtimeOf: () => ({}) as ReturnType<CommandDeps['runtimeOf']> };
    registerLogStats(program, deps, async (o) => void (got = o));
    await program.parseAsync(['stats', ...args], { from: 'user' });
    return got!;
  };
  const ALL = ['Verbose', 'Debug', 'Information', 'Warning', 'Error', 'Fatal'];
  it.each([
    [[], { since: '2029-12-10T00:00:00.000Z', until: '2030-01-09T00:00:00.000Z', by: 'day', levels: ALL, where: undefined }],
    [
      ['--since', '48h', '--by', 'HOUR', '--level', 'fatal,Error,error'],
      { since: '2030-01-07T00:00:00.000Z', until: '2030-01-09T00:00:00.000Z', by: 'hour', levels: ['Error', 'Fatal'], where: undefined },
    ],
    [
      ['--since', '2030-01-01', '--until', '2030-01-02T12:00Z', '--by', 'week', '--where', 'Id > 3'],
      { since: '2030-01-01T00:00:00.000Z', until: '2030-01-02T12:00:00.000Z', by: 'week', levels: ALL, where: 'Id > 3' },
    ],
  ])('%j → %j', async (args, expected) => {
    expect(await parse(args)).toEqual(expected);
  });
});

describe('buckets', () => {
  const t = (s: string) => Date.parse(s);
  it('weeks start on Monday 00:00 UTC; days and hours on the UTC boundary', () => {
    expect(new Date(bucketFloor(t('2030-01-06T23:00:00Z'), 'week')).toISOString()).toBe('2029-12-31T00:00:00.000Z');
    expect(new Date(bucketFloor(t('2030-01-07T00:00:00Z'), 'week')).toISOString()).toBe('2030-01-07T00:00:00.000Z');
    expect(new Date(bucketFloor(t('2030-01-07T13:45:00Z'), 'day')).toISOString()).toBe('2030-01-07T00:00:00.000Z');
    expect(new Date(bucketFloor(t('2030-01-07T13:45:00Z'), 'hour')).toISOString()).toBe('2030-01-07T13:00:00.000Z');
  });
  it('the first and last buckets are clipped to the range, and bucketCount agrees with the list', () => {
    const b = buckets(t('2030-01-06T10:30:00Z'), t('2030-01-08T01:00:00Z'), 'day');
    expect(b.map((x) => [new Date(x.start).toISOString(), new Date(x.end).toISOString()])).toEqual([
      ['2030-01-06T10:30:00.000Z', '2030-01-07T00:00:00.000Z'],
      ['2030-01-07T00:00:00.000Z', '2030-01-08T00:00:00.000Z'],
      ['2030-01-08T00:00:00.000Z', '2030-01-08T01:00:00.000Z'],
    ]);
    for (const by of ['hour', 'day', 'week'] as const) {
      for (const [a, z] of [
        ['2030-01-06T10:30:00Z', '2030-01-08T01:00:00Z'],
        ['2030-01-01T00:00:00Z', '2030-03-01T00:00:00Z'],
        ['2030-01-07T00:00:00Z', '2030-01-07T00:00:00.001Z'],
      ] as const) {
        expect(bucketCount(t(a), t(z), by)).toBe(buckets(t(a), t(z), by).length);
      }
    }
    expect(bucketCount(t('2030-01-02'), t('2030-01-01'), 'day')).toBe(0);
  });
  it('splitCells shares the bar by the running sum, so the parts always add up', () => {
    expect(splitCells([3, 1], 8)).toEqual([6, 2]);
    expect(splitCells([1, 1, 1], 10)).toEqual([3, 4, 3]);
    expect(splitCells([0, 0], 5)).toEqual([0, 0]);
  });
  it('a bucket with entries gets at least one cell however busy the others are', () => {
    const rows = [
      { start: '2030-01-06T00:00:00.000Z', end: '', counts: { Error: 1 }, total: 1 },
      { start: '2030-01-07T00:00:00.000Z', end: '', counts: { Error: 10_000 }, total: 10_000 },
    ];
    const out = drawChart(rows, { width: 40, by: 'day', levels: ['Error'] });
    expect(out.split('\n')[0]).toMatch(/^2030-01-06 {2}▓ +1$/);
  });
});
