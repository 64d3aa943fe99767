// Cross-cutting: terminal tables (width, truncation, --wide, --utc, footers) as every list draws them; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * Terminal tables: fitted to the width (COLUMNS / the stream's columns), text
 * truncated with `…` by display width, ids and numbers whole and right-aligned, `--wide`,
 * compact local times and `--utc`, the single-page footer and the empty-result note, the
 * page-by-page drawing of `--all`. In-process against the real service; the pure parts
 * of src/cli/table.ts directly.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  TableStream,
  chooseColumns,
  displayWidth,
  fitWidths,
  minWidth,
  terminalWidth,
  timeFormatter,
  truncate,
  truncateMiddle,
} from '../../src/cli/table.js';
import { envFor, runCli, type RunOptions } from '../helpers/cli.js';
import { http } from '../helpers/service.js';
import { useService } from '../helpers/fixtures.js';

const ANSI = /\u001b\[[0-9;]*m/g;
const NOW = new Date('2026-11-23T06:44:30.000Z');
const LONG = 'a description long enough that no eighty-column terminal could ever hold it next to the other columns of the key list';
const WIDE_NAME = '鍵の名前とても長い名前🔑🔑🔑 with more words after it';
const { svc } = useService({ now: () => NOW });
beforeAll(async () => {
  for (let i = 0; i < 3; i++) {
    await http(svc, 'POST', '/v1/api-keys', {
      key: svc.adminKey,
      body: { apiKey: { name: i === 1 ? WIDE_NAME : `key-${i}`, permissions: 3, description: `${LONG} #${i}` } },
    });
  }
});

const lic = (args: string[], o: RunOptions = {}) =>
  runCli(args, { tty: true, ...o, env: { ...envFor(svc, svc.adminKey), NO_COLOR: '1', TZ: 'Europe/Berlin', ...o.env } });
const lines = (s: string) => s.replace(/\n$/, '').split('\n');

describe('keys list on a terminal: fitted to the width', () => {
  it.each([80, 200])('COLUMNS=%i: no line wider than the terminal, ids whole and right-aligned, long text cut with …', async (cols) => {
    const r = await lic(['keys', 'list'], { env: { COLUMNS: String(cols) } });
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out).toHaveLength(5); // header + bootstrap + 3
    for (const l of out) expect(displayWidth(l)).toBeLessThanOrEqual(cols);
    expect(out[0]).toMatch(/^ID {2}NAME/);
    // the ids 1..4 each start a row, right-aligned under ID
    expect(out.slice(1).map((l) => l.slice(0, 2))).toEqual([' 1', ' 2', ' 3', ' 4']);
    expect(r.stdout).toContain('…');
    expect(r.stdout).not.toContain(LONG);
    // a key prefix (a short label) stays whole
    for (const l of out.slice(1)) expect(l).toMatch(/ {2}api_[a-z0-9]{4} {2}/);
    // compact local time (Europe/Berlin = UTC+1 in November)
    expect(out[1]).toContain('2026-11-23 07:44');
    expect(r.stdout).not.toMatch(/\d{2}:\d{2}:\d{2}/);
  });

  it('--wide: everything in full, lines as wide as they need', async () => {
    const r = await lic(['--wide', 'keys', 'list'], { env: { COLUMNS: '80' } });
    expect(r.stdout).toContain(`${LONG} #2`);
    expect(r.stdout).toContain(WIDE_NAME);
    expect(r.stdout).not.toContain('…');
    expect(Math.max(...lines(r.stdout).map(displayWidth))).toBeGreaterThan(LONG.length);
  });

  it('the stream columns count when COLUMNS is not set', async () => {
    const r = await lic(['keys', 'list']); // runCli's stdout has columns 120
    expect(Math.max(...lines(r.stdout).map(displayWidth))).toBe(120);
  });

  it('--utc: compact UTC times marked Z; piped output keeps RFC 3339', async () => {
    const utc = await lic(['--utc', 'keys', 'list'], { env: { COLUMNS: '200' } });
    expect(utc.stdout).toContain('2026-11-23 06:44Z');
    const piped = await lic(['keys', 'list'], { tty: false });
    expect(piped.stdout).toContain('2026-11-23T06:44:30');
    expect(piped.stdout).toContain(LONG); // never truncated when piped
  });

  it('color only when enabled: ANSI codes do not count towards the width', async () => {
    const r = await lic(['keys', 'list'], { env: { NO_COLOR: undefined, FORCE_COLOR: '1', COLUMNS: '80' } });
    expect(r.stdout).toMatch(ANSI);
    for (const l of lines(r.stdout)) expect(l.replace(ANSI, '').length).toBeLessThanOrEqual(80);
  });
});

describe('log list on a terminal: footer, empty result, big lists', () => {
  beforeAll(() => {
    const ins = svc.db.prepare(
      'INSERT INTO log (time_stamp, level, message, message_template, exception, properties) VALUES (?, ?, ?, ?, ?, ?)',
    );
    svc.db.transaction(() => {
      for (let i = 0; i < 6_000; i++)
        ins.run(NOW.getTime() - i * 1000, i % 2 ? 'Information' : 'Warning', `entry ${i} `.padEnd(150, 'x'), 'entry', '', '{}');
    })();
  });

  it('one page of more: rows on stdout, `100 of N log entries (use --all or --limit)` on stderr', async () => {
    const total = (await http(svc, 'GET', '/v1/log?take=1', { key: svc.adminKey })).body.totalLogEntriesCount as number;
    const r = await lic(['log', 'list', '--take', '100'], { env: { COLUMNS: '80' } });
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toHaveLength(101);
    for (const l of lines(r.stdout)) expect(l.length).toBeLessThanOrEqual(80);
    expect(r.stderr).toBe(`100 of ${total.toLocaleString('en-US')} log entries (use --all or --limit)\n`);
    expect(r.stdout).not.toContain('use --all');
    // not with -q; and off a terminal (a cron job mails any stderr) not at all
    expect((await lic(['-q', 'log', 'list', '--take', '100'])).stderr).toBe('');
    const csv = await lic(['log', 'list', '--take', '5', '-o', 'csv'], { tty: false });
    expect(lines(csv.stdout)).toHaveLength(6);
    expect(csv.stderr).toBe('');
  });

  it('no match: nothing on stdout, `no log entries match` on stderr, exit 0; machine formats keep their empty document', async () => {
    const r = await lic(['log', 'list', '--where', 'Message.Contains("no such text")']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('no log entries match\n');
    const json = await lic(['log', 'list', '--where', 'Message.Contains("no such text")', '-o', 'json'], { tty: false });
    expect(JSON.parse(json.stdout).logEntries ?? []).toEqual([]);
    expect(json.stderr).toBe('');
    expect((await lic(['-q', 'log', 'list', '--where', 'Message.Contains("no such text")'])).stderr).toBe('');
  });

  it('--all: one header, every row fitted, the big-list hint once on stderr (not with -q)', async () => {
    const r = await lic(['log', 'list', '--all'], { env: { COLUMNS: '100' } });
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    const total = (await http(svc, 'GET', '/v1/log?take=1', { key: svc.adminKey })).body.totalLogEntriesCount as number;
    expect(out).toHaveLength(total + 1);
    expect(out.filter((l) => /^ +ID {2}TIME/.test(l))).toHaveLength(1);
    for (const l of out) expect(l.length).toBeLessThanOrEqual(100);
    expect(r.stderr.match(/log entries to a terminal; -o ndjson or a pager \(\| less -S\) is faster/g)).toHaveLength(1);
    expect(r.stderr).toContain('lic: more than 5,000 log entries to a terminal');
    // a --limit under the mark: no hint, however many the service holds
    expect((await lic(['log', 'list', '--limit', '4000'])).stderr).toBe('');
    expect((await lic(['-q', 'log', 'list', '--all'])).stderr).toBe('');
  });
});

describe('src/cli/table.ts', () => {
  it('terminalWidth: a positive COLUMNS wins, then the stream, then 80', () => {
    expect(terminalWidth(120, { COLUMNS: '80' })).toBe(80);
    expect(terminalWidth(120, { COLUMNS: 'x' })).toBe(120);
    expect(terminalWidth(0, {})).toBe(80);
    expect(terminalWidth(undefined, { COLUMNS: '0' })).toBe(80);
  });

  it('truncate: by display width, whole graphemes, …', () => {
    expect(truncate('abcdef', 6)).toBe('abcdef');
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('日本語テキスト', 6)).toBe('日本…'); // 2+2+1 ≤ 6, a third wide char would make 7
    expect(displayWidth(truncate('日本語テキスト', 6))).toBeLessThanOrEqual(6);
    expect(truncate('👍🏽👍🏽👍🏽', 4)).toBe('👍🏽…');
    expect(displayWidth('\u001b[1mID\u001b[22m')).toBe(2);
  });

  it('chooseColumns: all when they fit; then empty columns go; then the lowest priority, the rightmost among equals; never fewer than two', () => {
    const c = (natural: number[], mins: number[], empty: boolean[] = [], priority: number[] = []) => ({
      natural,
      mins,
      empty: natural.map((_, i) => empty[i] ?? false),
      priority: natural.map((_, i) => priority[i] ?? 0),
    });
    expect(chooseColumns(c([3, 20, 12, 16], [3, 16, 12, 16]), 80)).toEqual([0, 1, 2, 3]);
    // 3+30+7+16 + 6 = 62 > 60: the empty third column goes, and then it fits at its natural widths
    expect(chooseColumns(c([3, 30, 7, 16], [3, 16, 7, 16], [false, false, true, false]), 60)).toEqual([0, 1, 3]);
    // minimums 3+16+12+16+12 + 8 = 67 > 60: the rightmost goes
    expect(chooseColumns(c([3, 20, 12, 16, 12], [3, 16, 12, 16, 12]), 60)).toEqual([0, 1, 2, 3]);
    // a lower priority goes first, wherever it is; among equals the rightmost
    expect(chooseColumns(c([3, 20, 12, 16, 12], [3, 16, 12, 16, 12], [], [0, 0, -1, 0, -1]), 60)).toEqual([0, 1, 2, 3]);
    expect(chooseColumns(c([3, 20, 12, 16, 12], [3, 16, 12, 16, 12], [], [0, 0, -1, 0, 0]), 60)).toEqual([0, 1, 3, 4]);
    expect(chooseColumns(c([30, 30, 30], [30, 30, 30]), 20)).toEqual([0, 1]);
  });

  it('minWidth: ids, times and codes whole; labels 12; text 16; a name 16 or enough to differ from its neighbours; a URL its origin', () => {
    expect(minWidth('code', 'NUMBER', ['ORD-2026-01015'], 14)).toBe(14);
    expect(minWidth('label', 'PAYMENT', ['PartiallyPaid'], 13)).toBe(12);
    expect(minWidth('label', 'SIGNING KEY ALIAS', ['x'], 17)).toBe(17);
    expect(minWidth('text', 'DESCRIPTION', ['a long description'], 60)).toBe(16);
    const names = ['ShroudIL Obfuscator 4.2 Standard', 'ShroudIL Obfuscator 4.2 Professional', 'ShroudIL Obfuscator 4.2 Enterprise'];
    // they share "ShroudIL Obfuscator 4.2 " (24 columns): 26 tells them apart ("…S…", "…P…", "…E…")
    expect(minWidth('name', 'NAME', names, 36)).toBe(26);
    expect(new Set(names.map((n) => truncate(n, 26))).size).toBe(3);
    expect(minWidth('name', 'NAME', ['Demo key', 'Sales key'], 9)).toBe(9);
    expect(minWidth('url', 'BASE URL', ['http://127.0.0.1:39017/some/long/path/prefix'], 44)).toBe(24);
  });

  it('truncateMiddle: keeps the start it is told to and more of the end; never wider than asked', () => {
    expect(truncateMiddle('ORD-2026-01015', 14)).toBe('ORD-2026-01015');
    expect(truncateMiddle('ORD-2026-01015', 10)).toBe('ORD…-01015');
    expect(truncateMiddle('http://127.0.0.1:39017/v1/products/12/releases/4', 32, 22)).toBe('http://127.0.0.1:39017/v1…ases/4');
    expect(truncateMiddle('/v1/products/2147483647/releases/2147483647/license-templates', 31)).toBe('/v1/produc…47/license-templates');
    for (let w = 1; w < 40; w++) expect(displayWidth(truncateMiddle('鍵の名前とても長い名前🔑🔑 with words', w))).toBeLessThanOrEqual(w);
  });

  it('a table too wide for the terminal even at its minimums leaves out its last columns (never an overflowing line); --wide keeps them', () => {
    const cols = ['A', 'B', 'C', 'D', 'E'].map((h, i) => ({ header: h, kind: 'label' as const, get: (r: string[]) => r[i] }));
    const row = ['aaaaaaaaaaaa', 'bbbbbbbbbbbb', 'cccccccccccc', 'dddddddddddd', 'eeeeeeeeeeee'];
    const t = new TableStream<string[]>(cols, {
      width: 40,
      wide: false,
      utc: true,
      cellText: String,
      paint: { head: (x: string) => x, tone: (_t: unknown, x: string) => x },
    } as never);
    const lines = t.page([row]).trimEnd().split('\n');
    expect(lines[0]).toBe('A             B             C');
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(40);
    const wide = new TableStream<string[]>(cols, {
      width: 40,
      wide: true,
      utc: true,
      cellText: String,
      paint: { head: (x: string) => x, tone: (_t: unknown, x: string) => x },
    } as never);
    expect(wide.page([row]).split('\n')[1]).toBe(row.join('  '));
  });

  it('fitWidths: text shrinks first (widest first), then labels, never below the minimum; the last text column takes the rest', () => {
    // id 5, text 40, label 10, text 30: 85 + 6 gaps = 91 → 80
    expect(fitWidths([5, 40, 10, 30], ['id', 'text', 'label', 'text'], [5, 8, 5, 8], 80)).toEqual([5, 29, 10, 30]);
    // text at its minimum: the label gives way
    expect(fitWidths([5, 8, 10, 8], ['id', 'text', 'label', 'text'], [5, 8, 5, 8], 30)).toEqual([5, 8, 5, 6]);
    // nothing left to give: the last text column keeps 1 column, the id stays whole
    expect(fitWidths([20, 8, 8], ['id', 'text', 'text'], [20, 8, 8], 20)).toEqual([20, 8, 1]);
  });

  it('TableStream: later pages keep the first widths; a wider id or label widens its row, the last text column gives the room back', () => {
    type E = { id: number; level: string; message: string };
    const cols = [
      { header: 'ID', kind: 'id' as const, get: (e: E) => e.id },
      { header: 'LEVEL', kind: 'label' as const, get: (e: E) => e.level },
      { header: 'MESSAGE', kind: 'text' as const, get: (e: E) => e.message },
    ];
    const t = new TableStream(cols, { width: 30, cellText: String, paint: { head: (s) => s, tone: (_t, s) => s } });
    expect(t.page([{ id: 9, level: 'Error', message: 'short' }])).toBe('ID  LEVEL  MESSAGE\n 9  Error  short\n');
    const out = t.page([{ id: 12345, level: 'Information', message: 'a message far longer than the line' }]);
    expect(out).toBe('12345  Information  a message…\n');
    expect(displayWidth(out.trimEnd())).toBeLessThanOrEqual(30);
    expect(t.page([])).toBe('');
  });

  it('timeFormatter: local time in the given zone, UTC with Z, other text unchanged', () => {
    expect(timeFormatter({ timeZone: 'Asia/Tokyo' })('2026-11-23T06:44:59.123Z')).toBe('2026-11-23 15:44');
    expect(timeFormatter({ timeZone: 'America/New_York' })('2026-07-01T03:05:00Z')).toBe('2026-06-30 23:05');
    expect(timeFormatter({ utc: true })('2026-11-23T07:44:00+01:00')).toBe('2026-11-23 06:44Z');
    expect(timeFormatter({ utc: true })('not a time')).toBe('not a time');
  });
});
