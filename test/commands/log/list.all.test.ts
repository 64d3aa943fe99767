/**
 * `lic log list` with the list machinery against the real service: --all over a few
 * thousand entries in every output format, --limit, --fields, --sort, friendly filter
 * flags, backpressure, progress bar, Ctrl-C, and usage errors.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { tsvUnescape } from '../../helpers/tsv.js';
import { runCli } from '../../helpers/cli.js';

import { testContext, runIn } from '../../helpers/context.js';
import { insertLog, until } from '../../cli/list/harness.js';
import { useService, ndjson } from '../../helpers/fixtures.js';

const N = 3500;

interface Row {
  id: number;
  message: string;
  level: string;
  time_stamp: number;
}

/** The log as the database holds it, newest id first. */
const dbLog = (): Row[] => svc.db.prepare('SELECT id, message, level, time_stamp FROM log ORDER BY id DESC').all() as Row[];

/** The GET requests a --verbose run made, as URLs. */
const requests = (stderr: string): URL[] => [...stderr.matchAll(/^> GET (\S+)/gm)].map((m) => new URL(m[1]!));

const { svc, env } = useService();
beforeAll(async () => {
  insertLog(svc.db, N);
});

describe('log list --all', () => {
  it('ndjson: every entry exactly once, newest id first, paging by id (cost linear)', async () => {
    const expected = dbLog();
    expect(expected.length).toBeGreaterThanOrEqual(N);
    const r = await runCli(['log', 'list', '--all', '-o', 'ndjson', '--verbose'], { env });
    expect(r.code).toBe(0);
    const recs = ndjson(r.stdout);
    expect(recs.map((e) => e.id)).toEqual(expected.map((e) => e.id));
    expect(recs.map((e) => e.message)).toEqual(expected.map((e) => e.message));
    // pages of 1000 by key: the first without a key clause, then "id < last id seen"
    const reqs = requests(r.stderr);
    expect(reqs.length).toBe(Math.ceil(expected.length / 1000));
    expect(
      reqs.every((u) => u.searchParams.get('sort') === 'id desc' && u.searchParams.get('take') === '1000' && !u.searchParams.has('skip')),
    ).toBe(true);
    expect(reqs[0]!.searchParams.get('filter')).toBeNull();
    expect(reqs[1]!.searchParams.get('filter')).toBe(`id < ${expected[999]!.id}`);
    expect(reqs[2]!.searchParams.get('filter')).toBe(`id < ${expected[1999]!.id}`);
  });

  it("json: ONE object of the server's shape with every entry and the total (compact when piped)", async () => {
    const expected = dbLog();
    const r = await runCli(['log', 'list', '--all', '-o', 'json'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').length).toBe(2); // one line and the final newline
    const body = JSON.parse(r.stdout);
    expect(Object.keys(body)).toEqual(['success', 'code', 'message', 'logEntries', 'totalLogEntriesCount']);
    expect(body).toMatchObject({ success: true, code: 0, message: 'OK', totalLogEntriesCount: expected.length });
    expect(body.logEntries.map((e: Row) => e.id)).toEqual(expected.map((e) => e.id));
    expect(Object.keys(body.logEntries[0])).toEqual(['id', 'message', 'messageTemplate', 'level', 'timeStamp', 'exception', 'properties']);
  });

  it('json on a terminal: the same document, pretty-printed', async () => {
    const expected = dbLog();
    const r = await runCli(['log', 'list', '--all', '--json', '--quiet'], { env, tty: true });
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(r.stdout).toBe(`${JSON.stringify(body, null, 2)}\n`);
    expect(body.logEntries.length).toBe(expected.length);
    expect(body.totalLogEntriesCount).toBe(expected.length);
  });

  it('csv: a header and one row per entry; commas, quotes and newlines round-trip through a CSV parser', async () => {
    const expected = dbLog();
    const r = await runCli(['log', 'list', '--all', '-o', 'csv'], { env });
    expect(r.code).toBe(0);
    const rows = parseCsv(r.stdout) as string[][];
    // the records' wire field names and raw values, not the table's columns
    expect(rows[0]).toEqual(['id', 'message', 'messageTemplate', 'level', 'timeStamp', 'exception', 'properties']);
    expect(rows.length).toBe(expected.length + 1);
    expect(rows.slice(1).map((x) => Number(x[0]))).toEqual(expected.map((e) => e.id));
    expect(rows.slice(1).map((x) => x[1])).toEqual(expected.map((e) => e.message));
    expect(rows.slice(1).map((x) => x[4])).toEqual(expected.map((e) => new Date(e.time_stamp).toISOString()));
    // the awkward messages really were there
    expect(expected.filter((e) => e.message.includes('"quoted", line1\nline2\ttab \\ back')).length).toBeGreaterThan(400);
  });

  it('tsv: a header and one line per entry; tabs, newlines and backslashes escaped reversibly', async () => {
    const expected = dbLog();
    const r = await runCli(['log', 'list', '--all', '-o', 'tsv'], { env });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines[0]).toBe('id\tmessage\tmessageTemplate\tlevel\ttimeStamp\texception\tproperties');
    expect(lines.length).toBe(expected.length + 1);
    const cells = lines.slice(1).map((l) => l.split('\t').map(tsvUnescape));
    expect(cells.every((c) => c.length === 7)).toBe(true);
    expect(cells.map((c) => Number(c[0]))).toEqual(expected.map((e) => e.id));
    expect(cells.map((c) => c[1])).toEqual(expected.map((e) => e.message));
  });

  it('a piped table streams one tab-separated line per entry, no header', async () => {
    const expected = dbLog();
    const r = await runCli(['log', 'list', '--all'], { env });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(expected.length);
    expect(lines.map((l) => Number(l.split('\t')[0]))).toEqual(expected.map((e) => e.id));
  });

  it('a terminal table is drawn page by page, with one header', async () => {
    const r = await runCli(['log', 'list', '--limit', '1200', '--fields', 'id,level', '--quiet', '--no-color'], { env, tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout.match(/^ *ID {2}LEVEL$/gm)?.length).toBe(1);
    expect(r.stdout.match(/^ *\d+ {2}\w+$/gm)?.length).toBe(1200);
  });
});

describe('log list --limit, --fields, --sort', () => {
  it('--limit stops early: 1500 newest over two requests; within a page, one request', async () => {
    const expected = dbLog();
    const r = await runCli(['log', 'list', '--limit', '1500', '-o', 'ndjson', '--verbose'], { env });
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout).map((e) => e.id)).toEqual(expected.slice(0, 1500).map((e) => e.id));
    expect(requests(r.stderr).map((u) => u.searchParams.get('take'))).toEqual(['1000', '500']);

    const one = await runCli(['log', 'list', '--limit', '5', '-o', 'json', '--verbose'], { env });
    expect(requests(one.stderr).map((u) => u.searchParams.get('take'))).toEqual(['5']);
    expect(JSON.parse(one.stdout).logEntries).toHaveLength(5);

    const all = await runCli(['log', 'list', '--all', '--limit', '2001', '-o', 'ndjson'], { env });
    expect(ndjson(all.stdout)).toHaveLength(2001);
  });

  it('--fields sets select and the columns: csv header is exactly the fields', async () => {
    const expected = dbLog();
    const r = await runCli(['log', 'list', '--all', '--fields', 'LEVEL,id,message', '-o', 'csv', '--verbose'], { env });
    expect(r.code).toBe(0);
    expect(requests(r.stderr)[0]!.searchParams.get('select')).toBe('level, id, message');
    const rows = parseCsv(r.stdout) as string[][];
    expect(rows[0]).toEqual(['level', 'id', 'message']);
    expect(rows.slice(1)).toEqual(expected.map((e) => [e.level, String(e.id), e.message]));
  });

  it('--fields without id still pages by id, and the records carry only the fields asked for', async () => {
    const expected = dbLog();
    const r = await runCli(['log', 'list', '--all', '--fields', 'message', '-o', 'ndjson'], { env });
    expect(r.code).toBe(0);
    const recs = ndjson(r.stdout);
    expect(recs.every((e) => Object.keys(e).join() === 'message')).toBe(true);
    expect(recs.map((e) => e.message)).toEqual(expected.map((e) => e.message));
  });

  it('--sort by another field pages by skip, still each entry once, in the asked order', async () => {
    const expected = dbLog();
    const r = await runCli(['log', 'list', '--all', '--sort', 'level', '--sort', 'id:desc', '-o', 'ndjson', '--verbose'], { env });
    expect(r.code).toBe(0);
    const recs = ndjson(r.stdout) as unknown as Row[];
    const want = [...expected].sort((a, b) => (a.level < b.level ? -1 : a.level > b.level ? 1 : b.id - a.id));
    expect(recs.map((e) => e.id)).toEqual(want.map((e) => e.id));
    const reqs = requests(r.stderr);
    expect(reqs.map((u) => u.searchParams.get('skip'))).toEqual(reqs.map((_u, i) => (i === 0 ? null : String(i * 1000))));
    expect(reqs.every((u) => u.searchParams.get('sort') === 'level asc, id desc')).toBe(true);
  });

  it('--sort id:asc pages by key in that order; --skip applies once', async () => {
    const expected = dbLog().reverse();
    const r = await runCli(['log', 'list', '--all', '--sort', 'id:asc', '--skip', '10', '-o', 'ndjson', '--verbose'], { env });
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout).map((e) => e.id)).toEqual(expected.slice(10).map((e) => e.id));
    const reqs = requests(r.stderr);
    expect(reqs[0]!.searchParams.get('skip')).toBe('10');
    expect(reqs.slice(1).every((u) => !u.searchParams.has('skip') && /^id > \d+$/.test(u.searchParams.get('filter')!))).toBe(true);
  });

  it('one page behaves as before: -o json prints the service body unchanged', async () => {
    const r = await runCli(['log', 'list', '--take', '3', '--skip', '1', '-o', 'json'], { env });
    const { request } = await import('undici');
    const res = await request(`${svc.url}/v1/log?take=3&skip=1`, { headers: { 'x-api-key': svc.adminKey } });
    expect(JSON.parse(r.stdout)).toEqual(await res.body.json());
  });
});

describe('log list friendly filter flags', () => {
  it('--level, --contains and --where are AND-ed into one filter, each parenthesised', async () => {
    const r = await runCli(
      ['log', 'list', '--all', '--level', 'warning', '--contains', 'entry 1', '--where', 'Id > 100 or Id = 3', '-o', 'ndjson', '--verbose'],
      { env },
    );
    expect(r.code).toBe(0);
    expect(requests(r.stderr)[0]!.searchParams.get('filter')).toBe(
      '(Level = "Warning") and (Message.Contains("entry 1")) and (Id > 100 or Id = 3)',
    );
    const want = dbLog().filter((e) => e.level === 'Warning' && e.message.includes('entry 1') && (e.id > 100 || e.id === 3));
    expect(want.length).toBeGreaterThan(10);
    expect(ndjson(r.stdout).map((e) => e.id)).toEqual(want.map((e) => e.id));
  });

  it('--contains quotes and backslashes safely', async () => {
    const { writeLog } = await import('../../../src/server/log-writer.js');
    const id = writeLog(svc.db, new Date(), 'Information', 'say "hi" \\ to {Who}', { Who: 'me' });
    writeLog(svc.db, new Date(), 'Information', 'say hi to {Who}', { Who: 'me' });
    const r = await runCli(['log', 'list', '--contains', 'say "hi" \\ to', '-o', 'ndjson', '--verbose'], { env });
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout).map((e) => e.id)).toEqual([id]);
    expect(requests(r.stderr)[0]!.searchParams.get('filter')).toBe('Message.Contains("say \\"hi\\" \\\\ to")');
  });

  it('--since/--until still become startDate/endDate, with --all', async () => {
    const r = await runCli(
      ['log', 'list', '--all', '--since', '2025-01-01T00:10:00Z', '--until', '2025-01-01T00:20:00Z', '-o', 'ndjson', '--verbose'],
      { env },
    );
    expect(r.code).toBe(0);
    const from = Date.parse('2025-01-01T00:10:00Z');
    const to = Date.parse('2025-01-01T00:20:00Z');
    expect(ndjson(r.stdout).map((e) => e.id)).toEqual(
      dbLog()
        .filter((e) => e.time_stamp >= from && e.time_stamp < to)
        .map((e) => e.id),
    );
    expect(requests(r.stderr)[0]!.searchParams.get('startDate')).toBe('2025-01-01T00:10:00.000Z');
  });

  it("a bad --where is the service's 400: exit 1 with its message", async () => {
    const r = await runCli(['log', 'list', '--where', 'Level = ', '-o', 'ndjson'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/filter/);
    expect(r.stderr).toMatch(/HTTP 400/);
    expect(r.stdout).toBe('');
  });
});

describe('streaming behaviour', () => {
  it('waits for stdout to drain whenever a write says its buffer is full', async () => {
    const expected = dbLog();
    const h = testContext({ env, fullEvery: 1 });
    const code = await runIn(h, ['log', 'list', '--all', '-o', 'ndjson']);
    expect(code).toBe(0);
    // at least a write per page (a page passed through as text is written in slices of 64 records)
    expect(h.pressure.full).toBeGreaterThanOrEqual(Math.ceil(expected.length / 1000));
    expect(h.pressure.drains).toBe(h.pressure.full);
    expect(h.pressure.writesWhileFull).toBe(0);
    expect(ndjson(h.stdout()).map((e) => e.id)).toEqual(expected.map((e) => e.id));
  });

  it('shows a progress bar on a terminal stderr (records of the total), never on stdout', async () => {
    const total = dbLog().length;
    const h = testContext({ env, stderrTTY: true });
    expect(await runIn(h, ['log', 'list', '--all', '-o', 'ndjson'])).toBe(0);
    expect(h.stderr()).toContain(`0/${total.toLocaleString('en-US')} log entries`);
    // cleared at the end (carriage return, erase to the end of the line) and replaced by one summary line
    expect(h.stderr()).toMatch(new RegExp(`\r\u001b\\[K${total.toLocaleString('en-US')} log entries in \\d+\\.\\d s\\n$`));
    expect(h.stderr()).not.toMatch(/NaN|Infinity/);
    expect(h.stderr()).toMatch(/\d[\d,]*\/s/);
    expect(ndjson(h.stdout())).toHaveLength(total);
  });

  it('no progress bar when stderr is piped, or with --quiet', async () => {
    const piped = testContext({ env, stderrTTY: false });
    expect(await runIn(piped, ['log', 'list', '--all', '-o', 'ndjson'])).toBe(0);
    expect(piped.stderr()).toBe('');
    const quiet = testContext({ env, stderrTTY: true });
    expect(await runIn(quiet, ['log', 'list', '--all', '-o', 'ndjson', '--quiet'])).toBe(0);
    expect(quiet.stderr()).toBe('');
  });

  it('Ctrl-C while paging stops after the current page, closes the json, exit 130', async () => {
    const total = dbLog().length;
    const h = testContext({ env });
    const run = runIn(h, ['log', 'list', '--all', '-o', 'json']);
    // interrupt as soon as the first page is out
    while (!h.stdout().includes('"id"')) await new Promise((r) => setTimeout(r, 1));
    h.interrupt();
    expect(await run).toBe(130);
    const body = JSON.parse(h.stdout());
    expect(body.logEntries.length).toBeGreaterThan(0);
    expect(body.logEntries.length).toBeLessThan(total);
    expect(h.stderr()).toMatch(/interrupted/);
    expect(h.interruptHandlers()).toBe(0);
  });
});

describe('Ctrl-C with a reply that never comes', () => {
  it('ends at once with the pages so far, exit 130 (a real socket that hangs on page 2)', async () => {
    const { createServer } = await import('node:http');
    let calls = 0;
    const server = createServer((req, res) => {
      calls++;
      if (calls > 1) return; // hang: never answer
      const entries = Array.from({ length: 1000 }, (_v, i) => ({
        id: 5000 - i,
        message: `m${i}`,
        level: 'Information',
        timeStamp: '2025-01-01T00:00:00.000Z',
      }));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ success: true, code: 0, message: 'OK', logEntries: entries, totalLogEntriesCount: 5000 }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const h = testContext({
        env: { LIC_BASE_URL: `http://127.0.0.1:${port}`, LIC_API_KEY: 'api_fakefakefakefakefakefake', LIC_TIMEOUT_MS: '120000' },
      });
      const run = runIn(h, ['log', 'list', '--all', '-o', 'json']);
      await until(() => calls === 2, 10_000, 'the second request');
      h.interrupt();
      expect(await run).toBe(130);
      const body = JSON.parse(h.stdout());
      expect(body.logEntries).toHaveLength(1000);
      expect(body.totalLogEntriesCount).toBe(5000);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
