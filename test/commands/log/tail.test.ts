/** `lic log tail [--follow]` against the real service, driven in-process with a Ctrl-C the test triggers. */
import { beforeAll, describe, expect, it } from 'vitest';
import { writeLog } from '../../../src/server/log-writer.js';
import { runCli } from '../../helpers/cli.js';

import { testContext, runIn } from '../../helpers/context.js';
import { insertLog, until } from '../../cli/list/harness.js';
import { useService, ndjson as ndjsonOf } from '../../helpers/fixtures.js';

const dbIds = (where = '1'): number[] => svc.db.prepare(`SELECT id FROM log WHERE ${where} ORDER BY id`).pluck().all() as number[];
const ndjson = (out: string) => ndjsonOf<{ id: number; level: string; message: string }>(out);
const requests = (stderr: string): URL[] => [...stderr.matchAll(/^> GET (\S+)/gm)].map((m) => new URL(m[1]!));

const { svc, env } = useService();
beforeAll(async () => {
  insertLog(svc.db, 1600);
});

describe('log tail', () => {
  it('prints the newest N entries, oldest first, and exits 0', async () => {
    const r = await runCli(['log', 'tail', '-n', '5', '-o', 'ndjson'], { env });
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout).map((e) => e.id)).toEqual(dbIds().slice(-5));
  });

  it('defaults to 10 lines; piped, one tab-separated line each', async () => {
    const r = await runCli(['log', 'tail'], { env });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.map((l) => Number(l.split('\t')[0]))).toEqual(dbIds().slice(-10));
  });

  it('more lines than a page: pages back by id', async () => {
    const r = await runCli(['log', 'tail', '--lines', '1500', '-o', 'ndjson', '--verbose'], { env });
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout).map((e) => e.id)).toEqual(dbIds().slice(-1500));
    const reqs = requests(r.stderr);
    expect(reqs.map((u) => u.searchParams.get('take'))).toEqual(['1000', '500']);
    expect(reqs.map((u) => u.searchParams.get('sort'))).toEqual(['Id desc', 'Id desc']);
    expect(reqs[1]!.searchParams.get('filter')).toBe(`Id < ${dbIds().slice(-1000)[0]}`);
  });

  it('--level/--contains/--where filter what is printed', async () => {
    const r = await runCli(
      ['log', 'tail', '-n', '4', '--level', 'error', '--contains', 'entry 1', '--where', 'Id < 1000', '-o', 'ndjson', '--verbose'],
      { env },
    );
    expect(r.code).toBe(0);
    const want = (
      svc.db.prepare("SELECT id, message FROM log WHERE level = 'Error' AND id < 1000 ORDER BY id").all() as {
        id: number;
        message: string;
      }[]
    )
      .filter((e) => e.message.includes('entry 1'))
      .map((e) => e.id)
      .slice(-4);
    expect(want).toHaveLength(4);
    expect(ndjson(r.stdout).map((e) => e.id)).toEqual(want);
    expect(requests(r.stderr)[0]!.searchParams.get('filter')).toBe('(Level = "Error") and (Message.Contains("entry 1")) and (Id < 1000)');
  });

  it('a bad --interval or --lines is a usage error', async () => {
    for (const args of [
      ['--interval', 'soon'],
      ['-n', 'ten'],
    ]) {
      const r = await runCli(['log', 'tail', ...args], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        args[0] === '--interval' ? /--interval.*expected a duration such as 500ms, 2s or 1m/ : /--lines.*expected an integer/,
      );
    }
  });
});

describe('log tail --follow', () => {
  it('prints entries written while it runs, each exactly once and in id order, through pages; Ctrl-C → 130', async () => {
    const h = testContext({ env });
    const before = dbIds();
    const run = runIn(h, ['log', 'tail', '--follow', '--interval', '20ms', '-n', '3', '-o', 'ndjson']);
    const printed = () => ndjson(h.stdout()).map((e) => e.id);
    await until(() => printed().length === 3, 10_000, 'the first 3 lines');
    expect(printed()).toEqual(before.slice(-3));

    // a few entries, one by one
    const fresh: number[] = [];
    for (let i = 0; i < 5; i++) fresh.push(writeLog(svc.db, new Date(), 'Information', 'live {N}', { N: i }));
    await until(() => printed().length === 8, 10_000, 'the 5 new entries');
    // then more than a page at once: it must page through all of them
    fresh.push(...insertLog(svc.db, 2500, { prefix: 'burst' }));
    await until(() => printed().length === 8 + 2500, 10_000, 'the burst of 2500');
    // and a few more after the burst
    for (let i = 0; i < 3; i++) fresh.push(writeLog(svc.db, new Date(), 'Warning', 'late {N}', { N: i }));
    await until(() => printed().length === 8 + 2503, 10_000, 'the late entries');

    expect(h.interruptHandlers()).toBe(1);
    h.interrupt();
    expect(await run).toBe(130);
    expect(h.stderr()).toMatch(/interrupted/);
    expect(h.interruptHandlers()).toBe(0);
    const ids = printed();
    expect(ids).toEqual([...before.slice(-3), ...fresh]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('follows only matching entries; -o json prints one entry per line', async () => {
    const h = testContext({ env });
    const run = runIn(h, [
      'log',
      'tail',
      '-f',
      '--interval',
      '10ms',
      '-n',
      '0',
      '--level',
      'Fatal',
      '--contains',
      'disk',
      '-o',
      'json',
      '--verbose',
    ]);
    // -n 0 follows from "now": the moment the first reply (where to start) is in
    await until(() => /^< 200 /m.test(h.stderr()), 10_000, 'the first reply');
    const want: number[] = [];
    for (let i = 0; i < 6; i++) {
      writeLog(svc.db, new Date(), 'Fatal', 'cpu on fire {N}', { N: i });
      want.push(writeLog(svc.db, new Date(), 'Fatal', 'disk full {N}', { N: i }));
      writeLog(svc.db, new Date(), 'Error', 'disk slow {N}', { N: i });
      await new Promise((r) => setTimeout(r, 15));
    }
    await until(() => ndjson(h.stdout()).length === want.length, 10_000, 'the matching entries');
    h.interrupt();
    expect(await run).toBe(130);
    const got = ndjson(h.stdout());
    expect(got.map((e) => e.id)).toEqual(want);
    expect(got.every((e) => e.level === 'Fatal' && e.message.startsWith('disk full'))).toBe(true);
  });

  it('Ctrl-C ends the wait between polls at once (a 1-hour interval)', async () => {
    const h = testContext({ env });
    const run = runIn(h, ['log', 'tail', '-f', '--interval', '1h', '-n', '1', '-o', 'ndjson']);
    await until(() => ndjson(h.stdout()).length === 1 && h.interruptHandlers() === 1, 10_000, 'the first line');
    h.interrupt();
    expect(await run).toBe(130);
  });

  it('on a terminal: aligned lines, no header, no table frame', async () => {
    const h = testContext({ env, stdoutTTY: true, stderrTTY: true });
    const run = runIn(h, ['log', 'tail', '-f', '--interval', '10ms', '-n', '2', '--no-color', '--utc']);
    await until(() => h.stdout().split('\n').length === 3, 10_000, 'two lines');
    const id = writeLog(svc.db, new Date('2025-06-01T00:00:00Z'), 'Warning', 'on the terminal', {});
    await until(() => h.stdout().includes('on the terminal'), 10_000, 'the new line');
    h.interrupt();
    expect(await run).toBe(130);
    const lines = h.stdout().trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(h.stdout()).not.toMatch(/[│┌└]|ID\s+TIME/);
    // a terminal's compact time (--utc), and a message longer than the first lines' still whole
    expect(lines[2]).toMatch(new RegExp(`^ *${id}\\s+2025-06-01 00:00Z\\s+Warning\\s+on the terminal$`));
  });
});
