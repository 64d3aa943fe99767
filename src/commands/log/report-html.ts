/**
 * The HTML page of `lic log report --html FILE`: one self-contained file (inline CSS, SVG
 * charts drawn at generation time by Observable Plot on linkedom's DOM, no script, no font,
 * no image file; a Content-Security-Policy that forbids loading anything), readable at phone
 * and desktop widths. Loaded only by `log report` (a lazy chunk and two vendor files).
 */
import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';
import { LOG_LEVELS, type LogLevel } from '../../wire.js';
import type { LogReport } from './report-data.js';

/** The color of each level, after Serilog's console theme (grey noise, yellow warnings, red errors), as in `log stats`. */
const LEVEL_COLORS: Record<LogLevel, string> = {
  Verbose: '#b0b0b0',
  Debug: '#6fb8c9',
  Information: '#59a14f',
  Warning: '#edc948',
  Error: '#e15759',
  Fatal: '#8e3fa8',
};

/** A verb's color in the management chart. */
const VERB_COLORS: Record<string, string> = { POST: '#4e79a7', PUT: '#f28e2b', PATCH: '#76b7b2', DELETE: '#e15759', GET: '#9c9c9c' };

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const fmt = (n: number) => n.toLocaleString('en-US');
/** `2026-11-23T06:44:00.000Z` → `2026-11-23 06:44` (UTC, as the whole page). */
const when = (iso: string) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : '');
/** A message template with its `{Holes}` set apart. */
const templateHtml = (t: string) => esc(t).replace(/\{[^{}]+\}/g, (h) => `<span class="hole">${h}</span>`);

/** A number the browser test reads back: `<span data-metric="NAME">1,234</span>`. */
const metric = (name: string, n: number) => `<span data-metric="${esc(name)}">${fmt(n)}</span>`;

/**
 * Renders `report` as the page: a CSP meta that forbids every fetch (`default-src 'none'`,
 * inline style only), a summary, then one section per part of the report.
 */
export function renderReportHtml(report: LogReport, generatedAt: Date): string {
  const { document } = parseHTML('<!doctype html><html><head></head><body></body></html>');
  const svg = (options: Plot.PlotOptions) => (Plot.plot({ ...options, document }) as unknown as { outerHTML: string }).outerHTML;
  const dayDates = report.days.map((d) => new Date(`${d}T00:00:00Z`));

  const spark = (days: readonly number[], color = '#4e79a7') => {
    // a reduce, not Math.max(...days): spreading a long array overflows the stack
    const max = days.reduce((a, b) => (b > a ? b : a), 1);
    const points = days.map((n, i) => ({ day: dayDates[i], n }));
    return svg({
      width: 160,
      height: 32,
      margin: 2,
      axis: null,
      x: { type: 'utc' },
      y: { domain: [0, max] },
      marks: [
        Plot.areaY(points, { x: 'day', y: 'n', fill: color, fillOpacity: 0.25 }),
        Plot.lineY(points, { x: 'day', y: 'n', stroke: color }),
      ],
    });
  };

  // each chart drawn twice, for a wide and a narrow screen (CSS shows one): an SVG scaled down to a phone is unreadable
  const both = (draw: (width: number) => string) => `<div class="wide">${draw(960)}</div><div class="narrow">${draw(360)}</div>`;

  const perDay = report.levels.flatMap((l) => l.days.map((n, i) => ({ day: dayDates[i], level: l.level, n })).filter((x) => x.n > 0));
  const levelChart = perDay.length
    ? both((width) =>
        svg({
          width,
          height: width > 500 ? 300 : 240,
          marginLeft: 50,
          style: { fontSize: '12px' },
          x: { type: 'utc', label: null, ticks: width > 500 ? 10 : 4 },
          y: { grid: true, label: 'entries per day (UTC)' },
          color: { domain: [...LOG_LEVELS], range: LOG_LEVELS.map((l) => LEVEL_COLORS[l]), legend: true },
          marks: [
            Plot.rectY(perDay, {
              x: 'day',
              interval: 'day',
              y: 'n',
              fill: 'level',
              order: [...LOG_LEVELS],
              insetLeft: width > 500 ? 1 : 0.5,
              insetRight: width > 500 ? 1 : 0.5,
            }),
            Plot.ruleY([0]),
          ],
        }),
      )
    : '<p class="none">No entries in this period.</p>';

  const calls = report.managementCalls;
  const users = calls.byUser.map((u) => u.user);
  const verbs = [...new Set(calls.byUserAndVerb.map((c) => c.verb))].sort();
  const callsChart = calls.count
    ? both((width) =>
        svg({
          width,
          height: 50 + 34 * users.length,
          marginLeft: width > 500 ? 130 : 110,
          style: { fontSize: '12px' },
          x: { grid: true, label: 'calls', ticks: width > 500 ? 10 : 4 },
          y: { domain: users, label: null },
          color: { domain: verbs, range: verbs.map((v) => VERB_COLORS[v] ?? '#bab0ac'), legend: true },
          marks: [Plot.barX(calls.byUserAndVerb, { y: 'user', x: 'count', fill: 'verb', order: verbs }), Plot.ruleX([0])],
        }),
      )
    : '<p class="none">No management calls in this period.</p>';

  // the chart and the table show the top users only: say so, with how many there are
  const callsNote = !calls.count
    ? ''
    : users.length < calls.users
      ? `<p class="sub">The ${fmt(users.length)} users with the most calls, of ${fmt(calls.users)}; each with all of their calls.</p>`
      : `<p class="sub">${fmt(calls.users)} ${calls.users === 1 ? 'user' : 'users'}.</p>`;

  const levelCount = (l: LogLevel) => report.levels.find((x) => x.level === l)?.count ?? 0;
  const cards = [
    ['entries', 'entries', report.entries],
    ['warnings', 'level-Warning', levelCount('Warning')],
    ['errors', 'level-Error', levelCount('Error')],
    ['fatal', 'level-Fatal', levelCount('Fatal')],
    ['exceptions', 'exceptions', report.exceptions.reduce((a, e) => a + e.count, 0)],
    ['management calls', 'management-calls', calls.count],
  ] as const;

  const levelBadge = (l: string) => `<span class="lvl" style="background:${LEVEL_COLORS[l as LogLevel] ?? '#ccc'}">${esc(l)}</span>`;

  const eventRows = report.eventTypes
    .map(
      (e) =>
        `<tr><td class="tpl">${templateHtml(e.template)}</td><td class="num" data-template="${esc(e.template)}">${fmt(e.count)}</td><td class="num hide-narrow">${(e.share * 100).toFixed(1)}%</td><td class="spark">${spark(e.days)}</td></tr>`,
    )
    .join('');
  const problemRows = report.problems.byEventType
    .map(
      (p) =>
        `<tr><td>${levelBadge(p.level)}</td><td class="tpl">${templateHtml(p.template)}</td><td class="num" data-problem="${esc(`${p.level} ${p.template}`)}">${fmt(p.count)}</td><td class="time hide-narrow">${when(p.last)}</td><td class="spark">${spark(p.days, LEVEL_COLORS[p.level] === LEVEL_COLORS.Warning ? '#b8860b' : LEVEL_COLORS[p.level])}</td></tr>`,
    )
    .join('');
  const propertyBlocks = report.problems.byProperty
    .map(
      (p) =>
        `<div class="prop"><h3>${esc(p.property)} <small>${fmt(p.entries)} entries</small></h3><table>${p.values
          .map((v) => `<tr><td class="val">${esc(v.value)}</td><td class="num">${fmt(v.count)}</td></tr>`)
          .join('')}</table></div>`,
    )
    .join('');
  const exceptionRows = report.exceptions
    .map(
      (e) =>
        `<tr><td class="type">${esc(e.type).replace(/\./g, '.<wbr>')}</td><td class="num" data-exception="${esc(e.type)}">${fmt(e.count)}</td><td class="time">${when(e.first)}</td><td class="time hide-narrow">${when(e.last)}</td><td class="spark">${spark(e.days, '#e15759')}</td></tr>`,
    )
    .join('');
  const callRows = calls.byUserAndVerb
    .map(
      (c) =>
        `<tr><td class="val">${esc(c.user)}</td><td>${esc(c.verb)}</td><td class="num" data-call="${esc(`${c.user} ${c.verb}`)}">${fmt(c.count)}</td></tr>`,
    )
    .join('');
  // a heading ending in `!` is left out on a narrow screen, with its column
  const table = (head: string[], rows: string, empty: string) =>
    rows
      ? `<div class="scroll"><table class="list"><thead><tr>${head.map((h) => (h.endsWith('!') ? `<th class="hide-narrow">${h.slice(0, -1)}</th>` : `<th>${h}</th>`)).join('')}</tr></thead><tbody>${rows}</tbody></table></div>`
      : `<p class="none">${empty}</p>`;

  const period = `${when(report.since)} to ${when(report.until)} UTC`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Log report, ${esc(period)}</title>
<style>
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1f2328;background:#f6f7f9}
main{max-width:1000px;margin:0 auto;padding:20px 16px 40px}
h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.2em;margin:1.8em 0 .6em;border-bottom:1px solid #d0d7de;padding-bottom:.3em}
h3{font-size:1em;margin:.2em 0 .4em}h3 small{color:#656d76;font-weight:normal}
.sub{color:#656d76;margin:0 0 1em}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(140px,1fr));gap:10px}
.card{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:10px 14px}
.card b{display:block;font-size:1.5em;font-variant-numeric:tabular-nums}.card span.k{color:#656d76;font-size:.9em}
section{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:4px 16px 14px;margin-top:18px}
section h2{border:0;margin-top:.8em}
svg{max-width:100%;height:auto}
.scroll{overflow-x:auto}
table.list{border-collapse:collapse;width:100%}
table.list th{text-align:left;font-weight:600;color:#656d76;font-size:.85em;border-bottom:1px solid #d0d7de;padding:4px 8px}
table.list td{border-bottom:1px solid #eaeef2;padding:5px 8px;vertical-align:middle}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.time{white-space:nowrap;color:#656d76;font-size:.9em}
td.tpl{word-break:break-word;min-width:12em}
td.val{word-break:break-all}td.type{overflow-wrap:anywhere}
td.spark{width:160px;padding:0 4px}
.hole{color:#8250df}
.lvl{display:inline-block;padding:0 6px;border-radius:4px;font-size:.85em;color:#1f2328}
.props{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:8px 20px}
.prop table{border-collapse:collapse;width:100%}.prop td{padding:2px 4px;border-bottom:1px solid #eaeef2}
.none{color:#656d76}
footer{color:#656d76;font-size:.85em;margin-top:24px}
.narrow{display:none}
@media (max-width:600px){.wide,.hide-narrow{display:none}.narrow{display:block}main{padding:12px 8px 30px}section{padding:4px 10px 10px}
td.spark{width:64px}td.spark svg{width:64px}table.list td,table.list th{padding:4px 3px}td.tpl{min-width:8em}td.time{white-space:normal}}
</style>
</head>
<body>
<main>
<h1>Log report</h1>
<p class="sub">${esc(period)} · ${report.days.length} days</p>
<div class="cards">${cards.map(([label, name, n]) => `<div class="card"><b>${metric(name, n)}</b><span class="k">${label}</span></div>`).join('')}</div>
<section><h2>Entries per level per day</h2>${levelChart}</section>
<section><h2>Top event types</h2>${table(['Event type (message template)', 'Entries', 'Share!', 'Trend'], eventRows, 'No entries in this period.')}</section>
<section><h2>Warnings and errors by event type</h2><p class="sub">${metric('problems', report.problems.entries)} entries of level Warning, Error or Fatal</p>${table(['Level', 'Event type', 'Entries', 'Last!', 'Trend'], problemRows, 'No warnings or errors in this period.')}
<h2>Warnings and errors by property value</h2>${propertyBlocks ? `<div class="props">${propertyBlocks}</div>` : '<p class="none">No property repeats among them.</p>'}</section>
<section><h2>Exceptions by type</h2>${table(['Exception', 'Entries', 'First', 'Last!', 'Trend'], exceptionRows, 'No exceptions in this period.')}</section>
<section><h2>Management calls by user and verb</h2>${callsNote}${callsChart}${table(['User', 'Verb', 'Calls'], callRows, '')}</section>
<footer>Generated by lic log report on ${esc(when(generatedAt.toISOString()))} UTC. Counts cover every entry of the period; the trends are entries per UTC day.</footer>
</main>
</body>
</html>
`;
}
