/**
 * `lic log report` as a person looks at it: the built CLI writes the page for the demo
 * log, Debian's headless Chromium opens it (console on stderr, the DOM dumped, screenshots
 * at 1280 and 390 px), and the page must log nothing to the console (a blocked load is a
 * console message under its Content-Security-Policy), fetch nothing, and show the numbers
 * the API gives for the same filters (take=0 totals). `-o json` carries the same figures.
 * Skips visibly where Chromium is absent (.ci/run installs it).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LogReport } from '../../../src/commands/log/report-data.js';
import { filterString } from '../../../src/cli/list/filter.js';
import { DAY } from '../../../src/time.js';
import { renderReportHtml } from '../../../src/commands/log/report-html.js';
import { envFor, runCli } from '../../helpers/cli.js';
import { reply, startFake } from '../../helpers/fake-server.js';
import { query, useService } from '../../helpers/fixtures.js';
import { http } from '../../helpers/service.js';
import { spawnLic } from '../../helpers/spawn.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
if (!CHROMIUM) console.warn('test/commands/log/report.test.ts: chromium not found; skipping the browser checks (apt-get install chromium)');

const NOW = new Date('2030-03-10T12:00:00.000Z');
const { svc } = useService({ seed: 'demo', now: () => NOW });
// a spawned lic reads the real clock: the period is given whole
const SINCE = new Date(NOW.getTime() - 30 * DAY).toISOString();
const PERIOD = ['--since', SINCE, '--until', NOW.toISOString()];
const dir = mkdtempSync(join(tmpdir(), 'lic-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The API's total for `filter` over the period: GET /v1/log?take=0. */
async function apiCount(filter?: string): Promise<number> {
  const r = await http(
    svc,
    'GET',
    `/v1/log${query({ take: 0, startDate: SINCE, endDate: NOW.toISOString(), ...(filter ? { filter } : {}) })}`,
    {
      key: svc.adminKey,
    },
  );
  expect(r.status).toBe(200);
  return r.body.totalLogEntriesCount as number;
}

/** Headless Chromium (Debian's) on `args` with a throw-away profile, no network of its own, the console on stderr. */
function chromium(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const profile = mkdtempSync(join(tmpdir(), 'lic-chromium-'));
  const flags = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--hide-scrollbars',
    '--host-resolver-rules=MAP * ~NOTFOUND',
    `--user-data-dir=${profile}`,
    '--enable-logging=stderr',
    '--v=0',
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(CHROMIUM!, [...flags, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      rmSync(profile, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    });
  });
}

/** The console messages Chromium printed (`…:INFO:CONSOLE:12] "…"`): errors, warnings, and every load the page's CSP blocked. */
const consoleLines = (stderr: string) => stderr.split('\n').filter((l) => /:CONSOLE[(:]/.test(l));

/** What in the page's source could load something: scripts, src/href attributes, CSS url() or @import. */
const loaders = (html: string) =>
  html.match(/<script|<link|<iframe|<object|<embed|\s(?:src|href|srcset)\s*=|url\(|@import|@font-face/gi) ?? [];

/** `data-metric="NAME"` numbers of a page (`3,000` → 3000). */
function metrics(dom: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of dom.matchAll(/data-metric="([^"]+)">([\d,]+)</g)) out[m[1]!] = Number(m[2]!.replace(/,/g, ''));
  return out;
}

/** `data-<kind>="KEY">N` cells of a page. */
function cells(dom: string, kind: string): Map<string, number> {
  const out = new Map<string, number>();
  const unescape = (s: string) =>
    s
      .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&');
  for (const m of dom.matchAll(new RegExp(`data-${kind}="([^"]+)">([\\d,]+)<`, 'g')))
    out.set(unescape(m[1]!), Number(m[2]!.replace(/,/g, '')));
  return out;
}

describe('lic log report', () => {
  const page = join(dir, 'report.html');

  it('--html writes one self-contained page; -o json the same figures, equal to the API totals', async () => {
    const r = await spawnLic(['log', 'report', ...PERIOD, '--html', page], { env: envFor(svc, svc.adminKey), timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const html = readFileSync(page, 'utf8');
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    );
    expect(loaders(html)).toEqual([]);
    expect((html.match(/<svg/g) ?? []).length).toBeGreaterThan(20);

    const j = await spawnLic(['log', 'report', ...PERIOD, '-o', 'json'], { env: envFor(svc, svc.adminKey), timeoutMs: 60_000 });
    expect(j.code, j.stderr).toBe(0);
    const report = JSON.parse(j.stdout) as LogReport;
    expect(report.entries).toBe(await apiCount());
    for (const l of report.levels) expect(l.count, l.level).toBe(await apiCount(`Level = ${filterString(l.level)}`));
    for (const e of report.eventTypes) expect(e.count, e.template).toBe(await apiCount(`MessageTemplate = ${filterString(e.template)}`));
    for (const e of report.exceptions) expect(e.count, e.type).toBe(await apiCount(`Exception.StartsWith(${filterString(`${e.type}:`)})`));
    expect(report.problems.entries).toBe(await apiCount('Level = "Warning" or Level = "Error" or Level = "Fatal"'));
    expect(report.managementCalls.count).toBe(await apiCount('MessageTemplate.StartsWith("{Method} {Path} by API key")'));
    for (const c of report.managementCalls.byUserAndVerb) {
      expect(c.count, `${c.user} ${c.verb}`).toBe(
        await apiCount(
          `MessageTemplate.StartsWith("{Method} {Path} by API key") and Message.StartsWith(${filterString(`"${c.verb}" `)}) and Message.Contains(${filterString(`of user "${c.user}"`)})`,
        ),
      );
    }
    writeFileSync(join(dir, 'report.json'), j.stdout);
  });

  it('without --html or -o json, with both, or to a file it cannot write: one line and its exit code, no file', async () => {
    const env = envFor(svc, svc.adminKey);
    const neither = await spawnLic(['log', 'report', ...PERIOD], { env });
    expect(neither.code).toBe(2);
    expect(neither.stderr).toBe('lic: log report writes an HTML page (--html FILE, - for stdout) or JSON (-o json); give one of them\n');
    const both = await spawnLic(['log', 'report', ...PERIOD, '--html', join(dir, 'x.html'), '-o', 'json'], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^lic: --html and -o json both choose the output/);
    const missing = join(dir, 'no-such-dir', 'r.html');
    const unwritable = await spawnLic(['log', 'report', ...PERIOD, '--html', missing], { env, timeoutMs: 60_000 });
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toBe(`lic: --html: cannot write ${missing}: no such file\n`);
    expect(existsSync(missing)).toBe(false);
    const stdout = await spawnLic(['log', 'report', ...PERIOD, '--html', '-'], { env, timeoutMs: 60_000 });
    expect(stdout.code).toBe(0);
    expect(stdout.stdout).toMatch(/^<!doctype html>[\s\S]*<\/html>\n$/);
  });

  it('--html to a FIFO (or /dev/stdout, a device) writes the page into it; the FIFO stays a FIFO', async () => {
    // a rename over it (the atomic write of a file) would put a regular file in its place
    const fifo = join(dir, 'page.fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('cat', [fifo]);
    let page = '';
    reader.stdout.on('data', (b: Buffer) => (page += b.toString()));
    const read = new Promise<void>((resolve) => reader.on('close', () => resolve()));
    const r = await spawnLic(['log', 'report', ...PERIOD, '--html', fifo], { env: envFor(svc, svc.adminKey), timeoutMs: 60_000 });
    // cat waits for a writer that never comes when the FIFO was replaced: end it then
    const killer = setTimeout(() => reader.kill(), 5_000);
    await read;
    clearTimeout(killer);
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(fifo).isFIFO()).toBe(true);
    expect(page).toMatch(/^<!doctype html>[\s\S]*<\/html>\n$/);
  });

  it.runIf(CHROMIUM)('Chromium shows it with no console message, nothing fetched, and the API numbers', async () => {
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as LogReport;
    const r = await chromium(['--dump-dom', `file://${page}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(consoleLines(r.stderr)).toEqual([]);
    const dom = r.stdout;
    expect(dom).toContain('Entries per level per day');
    const m = metrics(dom);
    expect(m).toEqual({
      entries: await apiCount(),
      'level-Warning': await apiCount('Level = "Warning"'),
      'level-Error': await apiCount('Level = "Error"'),
      'level-Fatal': await apiCount('Level = "Fatal"'),
      exceptions: await apiCount('Exception != ""'),
      'management-calls': await apiCount('MessageTemplate.StartsWith("{Method} {Path} by API key")'),
      problems: await apiCount('Level = "Warning" or Level = "Error" or Level = "Fatal"'),
    });
    const templates = cells(dom, 'template');
    expect(templates.size).toBe(report.eventTypes.length);
    for (const [t, n] of templates) expect(n, t).toBe(await apiCount(`MessageTemplate = ${filterString(t)}`));
    const exceptions = cells(dom, 'exception');
    expect(exceptions.size).toBeGreaterThan(3);
    for (const [t, n] of exceptions) expect(n, t).toBe(await apiCount(`Exception.StartsWith(${filterString(`${t}:`)})`));
  });

  it.runIf(CHROMIUM)('the check sees a page that loads from the network (it can fail)', async () => {
    const bad = join(dir, 'bad.html');
    writeFileSync(bad, readFileSync(page, 'utf8').replace('<main>', '<main><img src="http://127.0.0.1:9/x.png">'));
    const r = await chromium(['--dump-dom', `file://${bad}`]);
    expect(consoleLines(r.stderr).join('\n')).toMatch(/127\.0\.0\.1:9\/x\.png.*Content Security Policy/);
    expect(loaders(readFileSync(bad, 'utf8'))).toEqual([' src=']);
  });

  it.runIf(CHROMIUM)('screenshots at 1280 and 390 px wide', async () => {
    for (const width of [1280, 390]) {
      const png = join(dir, `report-${width}.png`);
      const r = await chromium([`--window-size=${width},2400`, `--screenshot=${png}`, `file://${page}`]);
      expect(r.code, r.stderr).toBe(0);
      expect(consoleLines(r.stderr)).toEqual([]);
      const bytes = readFileSync(png);
      expect(bytes.subarray(1, 4).toString()).toBe('PNG');
      // IHDR: the width asked for
      expect(bytes.readUInt32BE(16)).toBe(width);
      expect(statSync(png).size).toBeGreaterThan(20_000);
    }
  });
});

describe('log report over a long period', () => {
  const lic = (args: string[]) => runCli(args, { now: () => NOW, env: envFor(svc, svc.adminKey) });

  it('over 366 days is a usage error naming the limit (log top too), with no file', async () => {
    const page = join(dir, 'centuries.html');
    const r = await lic(['log', 'report', '--since', '1000-01-01', '--html', page]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'lic: --since 1000-01-01T00:00:00.000Z to --until 2030-03-10T12:00:00.000Z is 376,269 days; log report covers at most 366 (it counts per day): give a shorter period, e.g. one run per year\n',
    );
    expect(existsSync(page)).toBe(false);
    const top = await lic(['log', 'top', 'template', '--since', new Date(NOW.getTime() - 367 * DAY).toISOString(), '-o', 'json']);
    expect(top.code).toBe(2);
    expect(top.stderr).toMatch(/^lic: --since .* is 367 days; log top covers at most 366 \(it counts per day\)/);
  });

  it('366 days: the page is written, one trend point per day', async () => {
    const since = new Date(NOW.getTime() - 366 * DAY).toISOString();
    const j = await lic(['log', 'report', '--since', since, '-o', 'json']);
    expect(j.code, j.stderr).toBe(0);
    const report = JSON.parse(j.stdout) as LogReport;
    // the days [since, until) touches: 366 whole days and the parts of two
    expect(report.days).toHaveLength(367);
    expect(report.entries).toBe(await apiCount());
    const r = await lic(['log', 'report', '--since', since, '--html', '-']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('· 367 days</p>');
  });

  it('the renderer takes a period of any length (no Math.max over every day: it overflowed the stack)', () => {
    const days = Array.from({ length: 400_000 }, (_, i) => new Date(Date.UTC(1000, 0, 1) + i * DAY).toISOString().slice(0, 10));
    const counts = days.map((_, i) => (i % 1000 === 0 ? 3 : 0));
    const report: LogReport = {
      since: '1000-01-01T00:00:00.000Z',
      until: `${days.at(-1)!}T00:00:00.000Z`,
      days,
      entries: 1200,
      levels: [{ level: 'Information', count: 1200, days: counts }],
      eventTypes: [{ template: 'Started {Name}', share: 1, count: 1200, first: '', last: '', days: counts }],
      problems: { entries: 0, byEventType: [], byProperty: [] },
      exceptions: [],
      managementCalls: { count: 0, users: 0, byUserAndVerb: [], byUser: [] },
    };
    const html = renderReportHtml(report, NOW);
    expect(html).toContain('· 400000 days</p>');
    expect(html).toContain('data-template="Started {Name}">1,200<');
  }, 120_000);
});

describe('management calls by user', () => {
  // the service's audit entries (src/server/audit.ts) of 26 users: 25 with 4 verbs × 6 calls
  // (100 pairs of 6), and "wide" with 5 verbs × 5 calls: the most calls of all (25), every pair
  // of them below the top 100 pairs. Over 20 users: no service on demand has that many, hence a fake.
  const T = '{Method} {Path} by API key {ApiKeyId} of user {OwnerId}';
  const t0 = NOW.getTime() - DAY;
  const audit: Record<string, unknown>[] = [];
  const add = (user: string, verb: string) =>
    audit.push({
      id: 0,
      level: 'Information',
      timeStamp: new Date(t0 + audit.length * 1000).toISOString(),
      messageTemplate: T,
      message: `"${verb}" "/v1/products" by API key 1 of user "${user}"`,
      exception: '',
      properties: JSON.stringify({ Method: verb, Path: '/v1/products', ApiKeyId: 1, OwnerId: user }),
    });
  for (let u = 0; u < 25; u++) for (const verb of ['POST', 'PUT', 'PATCH', 'DELETE']) for (let i = 0; i < 6; i++) add(`user${u}`, verb);
  for (const verb of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) for (let i = 0; i < 5; i++) add('wide', verb);
  audit.forEach((e, i) => (e.id = i + 1));
  audit.reverse(); // newest first, as the service lists

  it("each user's total counts all of their calls; the page says the chart shows the top 20 of 26", async () => {
    const fake = await startFake((socket, req) => {
      const list = (new URL(req.path, 'http://x').searchParams.get('filter') ?? '').includes('Id <') ? [] : audit;
      reply(socket, 200, JSON.stringify({ success: true, code: 0, message: 'OK', logEntries: list, totalLogEntriesCount: audit.length }));
    });
    try {
      const period = ['--since', new Date(t0 - 1000).toISOString(), '--until', NOW.toISOString()];
      const fenv = envFor(fake, 'admin-key');
      const j = await runCli(['log', 'report', ...period, '-o', 'json'], { now: () => NOW, env: fenv });
      expect(j.code, j.stderr).toBe(0);
      const calls = (JSON.parse(j.stdout) as LogReport).managementCalls;
      expect(calls.count).toBe(625);
      // summed from the top 100 pairs, "wide" had none
      expect(calls.byUser[0]).toEqual({ user: 'wide', count: 25 });
      expect(calls.users).toBe(26);
      expect(calls.byUser).toHaveLength(20);
      for (const u of calls.byUser.slice(1)) expect(u.count, u.user).toBe(24);
      // the pairs are those of the users shown, all of them: a user's bar adds up to its total
      for (const u of calls.byUser)
        expect(
          calls.byUserAndVerb.filter((p) => p.user === u.user).reduce((a, p) => a + p.count, 0),
          u.user,
        ).toBe(u.count);
      expect(new Set(calls.byUserAndVerb.map((p) => p.user))).toEqual(new Set(calls.byUser.map((u) => u.user)));
      const r = await runCli(['log', 'report', ...period, '--html', '-'], { now: () => NOW, env: fenv });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('<p class="sub">The 20 users with the most calls, of 26; each with all of their calls.</p>');
      expect(r.stdout).toContain('data-call="wide GET">5<');
    } finally {
      await fake.close();
    }
  });
});
