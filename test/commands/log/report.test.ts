/**
 * `lic log report` as a person looks at it: the built CLI writes the page for the demo
 * log, Debian's headless Chromium opens it (console on stderr, the DOM dumped, screenshots
 * at 1280 and 390 px), and the page must log nothing to the console (a blocked load is a
 * console message under its Content-Security-Policy), fetch nothing, and show the numbers
 * the API gives for the same filters (take=0 totals). `-o json` carries the same figures.
 * Skips visibly where Chromium is absent (.ci/run installs it).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LogReport } from '../../../src/commands/log/report-data.js';
import { filterString } from '../../../src/cli/list/filter.js';
import { DAY } from '../../../src/time.js';
import { envFor } from '../../helpers/cli.js';
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
