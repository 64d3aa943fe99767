#!/usr/bin/env node
// Benchmarks of the log built for size (issue 4): `npm run bench` (builds, then runs this).
// BENCH_ROWS=100000 for a quick run (default 1,000,000). Writes bench/results.md.
//
// 1. builds a log of BENCH_ROWS entries straight into a SQLite file in a temp dir (the real
//    schema, triggers included), then starts the real service on it (`lic serve`, 127.0.0.1);
// 2. requests/second and latency of a filtered page of 100 (autocannon, 5 s each);
// 3. page against total: the page query and a plain count(*) in SQLite, then what the
//    service spends on each now (take=100 vs take=0), cold (the log changed since) and warm;
// 4. `lic log list --all -o ndjson`: entries/second and peak RSS, over the newest tenth and
//    over the whole log (RSS must stay flat);
// 5. purges by date range (all but the newest hour or day: truncated, the rest put back; all but
//    the newest week: windows; everything: truncated), with the latency of a reader meanwhile;
//    deleteAll. Each on a copy of the full log.
// Figures only: nothing here asserts a time (speed is measured here, never in tests).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import { END, START, buildLog } from './log-seed.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
if (!Number.isInteger(ROWS) || ROWS < 10_000) {
  console.error('BENCH_ROWS must be an integer >= 10000');
  process.exit(2);
}
const server = await import(join(ROOT, 'dist/server.cjs'));
const LIC = join(ROOT, 'bin/lic.js');
const tmp = mkdtempSync(join(os.tmpdir(), 'lic-bench-'));
const DB = join(tmp, 'log.db');
const DB_PRISTINE = join(tmp, 'log-pristine.db'); // the log as built: each purge but the first runs on a copy
const H = 3_600_000;
const DAY = 24 * H;
const iso = (ms) => new Date(ms).toISOString();
const out = []; // lines of results.md
const say = (s) => process.stderr.write(`bench: ${s}\n`);
const md = (s = '') => out.push(s);
const f1 = (x) =>
  x === undefined || Number.isNaN(x) ? '–' : x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : Math.round(x).toLocaleString('en-US');
const int = (x) => Math.round(x).toLocaleString('en-US');
const pct = (xs, p) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const median = (xs) => pct(xs, 50);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const processes = new Set();
process.on('exit', () => {
  for (const p of processes) p.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

// ---------------------------------------------------------------------------------------
// bench/startup.mjs reuses the seeder: BENCH_SEED_ONLY=FILE builds the log of BENCH_ROWS entries there and exits
if (process.env.BENCH_SEED_ONLY) {
  buildLog(server, process.env.BENCH_SEED_ONLY, ROWS);
  process.exit(0);
}

// the service, over HTTP

/** Starts `lic serve` on `file` (port 0); resolves with its URL, Administrator key and a stop(). */
async function startServe(file) {
  const keysFile = join(tmp, `keys-${Date.now()}.json`);
  const env = { ...process.env, LIC_CONFIG_DIR: join(tmp, 'config'), LIC_DATA_DIR: join(tmp, 'data'), NO_COLOR: '1' };
  const child = spawn(process.execPath, [LIC, 'serve', '--db', file, '--port', '0', '--no-profile', '--keys-file', keysFile], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  processes.add(child);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const url = await new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const line = buf.split('\n')[0];
      if (buf.includes('\n')) resolve(line.trim());
    });
    child.on('exit', (code) => reject(new Error(`lic serve exited ${code}: ${stderr}`)));
  });
  for (let i = 0; !existsSync(keysFile) || statSync(keysFile).size === 0; i++) {
    if (i > 200) throw new Error(`no keys file from lic serve: ${stderr}`);
    await sleep(25);
  }
  await sleep(50);
  const keys = JSON.parse(readFileSync(keysFile, 'utf8')).keys;
  const key = keys.find((k) => k.role === 'Administrator').key;
  return {
    url,
    key,
    async stop() {
      const exited = new Promise((r) => child.on('exit', r));
      child.kill('SIGTERM');
      await exited;
      processes.delete(child);
    },
  };
}

const agent = new Agent({ connections: 8 });
/** One request; resolves with status, parsed body and milliseconds. */
async function call(svc, method, path) {
  const t0 = performance.now();
  const res = await request(svc.url + path, { method, headers: { 'x-api-key': svc.key }, dispatcher: agent });
  const text = await res.body.text();
  const ms = performance.now() - t0;
  if (res.statusCode !== 200) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`);
  return { body: JSON.parse(text), ms };
}
const qs = (o) =>
  '?' +
  Object.entries(o)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');

// ---------------------------------------------------------------------------------------

const cpu = (() => {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? os.cpus()[0]?.model;
  } catch {
    return os.cpus()[0]?.model;
  }
})();
const sqliteVersion = new Database(':memory:').prepare('SELECT sqlite_version()').pluck().get();
const started = Date.now();
md('# Benchmarks: the log built for size');
md();
md(
  `Generated by \`npm run bench\` (bench/run.mjs) on ${new Date().toISOString().slice(0, 10)}${ROWS !== 1_000_000 ? ` with BENCH_ROWS=${ROWS}` : ''}. Figures, not asserts: rerun to compare.`,
);
md();
md(
  `Machine: ${os.availableParallelism()} CPUs (nproc), ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM; Node ${process.version}; SQLite ${sqliteVersion}; ${os.platform()} ${os.release()}. Load average at start: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}.`,
);
md();

say(`building a log of ${int(ROWS)} entries in ${DB}`);
const built = buildLog(server, DB, ROWS);
const buildMs = built.insertMs + built.indexMs;
const dbBytes = statSync(DB).size;
copyFileSync(DB, DB_PRISTINE);
md(`## The log`);
md();
md(
  `${int(ROWS)} entries over 30 days (80 % Information, 8 % Warning, 6 % Debug, 3 % Error, 2.8 % Verbose, 0.2 % Fatal; messages rendered from license-check, floating-license, activation and audit templates), inserted straight into SQLite with the service's schema, its indexes and its count triggers: **${f1(buildMs / 1000)} s** (${int(ROWS / (buildMs / 1000))} entries/s), database ${f1(dbBytes / 2 ** 20)} MiB.`,
);
md();

let svc = await startServe(DB);
say(`service at ${svc.url}`);
const ro = new Database(DB); // the bench's own connection: raw SQL timings, and writes that move the log on
ro.pragma('busy_timeout = 5000');

// ---------------------------------------------------------------------------------------
// 2. requests/second

const WARN = 'Level = "Warning"';
const since7 = iso(END - 7 * DAY);
const AC_SECONDS = 5;
const scenarios = [
  ['page of 100, `filter=Level="Warning"`', qs({ filter: WARN })],
  [`page of 100, \`Level="Warning"\` and \`startDate\` (last 7 days)`, qs({ filter: WARN, startDate: since7 })],
  ['page of 100, no filter (default sort)', ''],
];
md('## 1. Requests per second: a filtered page of 100');
md();
md(
  `autocannon, ${AC_SECONDS} s each, 4 connections, against 127.0.0.1 (autocannon and the service share the ${os.availableParallelism()} CPUs). "Repeated" asks the same page again and again (the total is then served from the cache while the log is unchanged); "uncached" moves startDate by a millisecond on every request, so every total is computed afresh (from the hour counts).`,
);
md();
md('| request | requests/s | latency p50 | p99 | non-2xx |');
md('| --- | ---: | ---: | ---: | ---: |');
async function cannon(path, setupPath) {
  const opts = { url: svc.url + path, headers: { 'x-api-key': svc.key }, duration: AC_SECONDS, connections: 4 };
  if (setupPath) {
    let i = 0;
    opts.requests = [{ setupRequest: (req) => ({ ...req, path: setupPath(i++) }) }];
  }
  const r = await autocannon(opts);
  return r;
}
await cannon(scenarios[0][1]).catch(() => {}); // warm-up (JIT, page cache)
for (const [name, path] of scenarios) {
  say(`autocannon: ${name}`);
  const r = await cannon(`/v1/log${path}`);
  md(`| ${name}, repeated | ${int(r.requests.average)} | ${r.latency.p50} ms | ${r.latency.p99} ms | ${r.non2xx + r.errors} |`);
}
{
  say('autocannon: uncached');
  const r = await cannon('/v1/log', (i) => `/v1/log${qs({ filter: WARN, startDate: iso(END - 7 * DAY + i) })}`);
  md(
    `| page of 100, \`Level="Warning"\` and a startDate that moves every request, uncached | ${int(r.requests.average)} | ${r.latency.p50} ms | ${r.latency.p99} ms | ${r.non2xx + r.errors} |`,
  );
}
md();

// ---------------------------------------------------------------------------------------
// 3. page against total

md('## 2. The page against its total');
md();
md(
  `Left: plain SQLite on the same file (median of 5): the page query the service runs (100 rows, default sort TimeStamp desc, Id desc) and a plain \`count(*)\` with the same WHERE, which is what every request paid for its total before migration 3. Right: the service now, per request over HTTP (median of 15; 3 for Contains), with \`take=100\` (page and total) and \`take=0\` (the total alone, HTTP included); "cold" makes the service write a log entry before each request (a DELETE of a missing id, which writes its audit entry), so no cached total can be used; "warm" repeats the request on an unchanged log.`,
);
md();
const COLS =
  'l.id AS c0, l.message AS c1, l.message_template AS c2, l.level AS c3, l.time_stamp AS c4, l.exception AS c5, l.properties AS c6';
const needleRow = ro.prepare("SELECT count(*) FROM log WHERE instr(message, 'denied') > 0").pluck().get();
const splitCases = [
  ['no filter', {}, '1', []],
  ['`Level = "Warning"`', { filter: WARN }, 'l.level = ?', ['Warning']],
  [
    'date range (7 days)',
    { startDate: iso(END - 10 * DAY), endDate: iso(END - 3 * DAY) },
    'l.time_stamp >= ? AND l.time_stamp < ?',
    [END - 10 * DAY, END - 3 * DAY],
  ],
  [
    '`Level = "Warning"` and startDate (7 days)',
    { filter: WARN, startDate: since7 },
    'l.time_stamp >= ? AND l.level = ?',
    [END - 7 * DAY, 'Warning'],
  ],
  [
    `\`Message.Contains("denied")\` (${int(needleRow)} matches)`,
    { filter: 'Message.Contains("denied")' },
    'instr(l.message, ?) > 0',
    ['denied'],
  ],
];
const timeIt = (fn, n) => {
  fn();
  const xs = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    fn();
    xs.push(performance.now() - t0);
  }
  return median(xs);
};
// a write through the service (deletes nothing, writes its audit entry, dated now: outside every range here)
const touch = () => call(svc, 'DELETE', '/v1/log?id=2147483647');
md(
  '| filter | SQLite: page | SQLite: count(*) | count ÷ page | service: take=100 cold | take=0 cold | take=100 warm | take=0 warm | total |',
);
md('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const [name, query, where, params] of splitCases) {
  say(`page vs count: ${name}`);
  const page = ro.prepare(`SELECT ${COLS} FROM log l WHERE ${where} ORDER BY l.time_stamp DESC, l.id DESC LIMIT 100`).raw();
  const count = ro.prepare(`SELECT count(*) FROM log l WHERE ${where}`).pluck();
  const slow = name.includes('Contains');
  const pageMs = timeIt(() => page.all(...params), slow ? 3 : 5);
  const countMs = timeIt(() => count.get(...params), slow ? 3 : 5);
  const svcMs = async (take, cold, n) => {
    const xs = [];
    let total;
    for (let i = 0; i < n + 1; i++) {
      if (cold) await touch();
      const r = await call(svc, 'GET', `/v1/log${qs({ ...query, take })}`);
      total = r.body.totalLogEntriesCount;
      if (i > 0) xs.push(r.ms);
    }
    return { ms: median(xs), total };
  };
  const n = slow ? 3 : 15;
  const a = await svcMs(100, true, n);
  const b = await svcMs(0, true, n);
  const c = await svcMs(100, false, n);
  const d = await svcMs(0, false, n);
  md(
    `| ${name} | ${f1(pageMs)} ms | ${f1(countMs)} ms | ${f1(countMs / pageMs)}× | ${f1(a.ms)} ms | ${f1(b.ms)} ms | ${f1(c.ms)} ms | ${f1(d.ms)} ms | ${int(d.total)} |`,
  );
}
md();
md(
  'Query plans of the page queries (EXPLAIN QUERY PLAN of the same SQL shapes; test/server/log-scale.test.ts asserts those of the SQL the service runs):',
);
md();
const plans = [
  ['default sort', '1', 'l.time_stamp DESC, l.id DESC'],
  ['Level and a date range', 'l.level = ? AND l.time_stamp >= ? AND l.time_stamp < ?', 'l.time_stamp DESC, l.id DESC'],
  ['`Id > N` sorted by Id (key paging)', 'l.id > ?', 'l.id ASC'],
  ['`Level = x and Id < N` by Id desc (lic log list --all --level x)', 'l.level = ? AND l.id < ?', 'l.id DESC'],
  [
    'a date range and `Id < N` by Id desc (--all --since)',
    '+l.time_stamp >= ? AND likelihood(l.id >= ?, 0.9) AND likelihood(l.id <= ?, 0.9) AND l.id < ?',
    'l.id DESC',
  ],
];
for (const [name, where, order] of plans) {
  const sql = `SELECT ${COLS} FROM log l WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`;
  const nulls = Array(sql.split('?').length - 1).fill(null);
  const plan = ro
    .prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...nulls)
    .map((r) => r.detail)
    .join('; ');
  md(`- ${name}: \`${plan}\``);
}
md();

// ---------------------------------------------------------------------------------------
// 4. lic log list --all

md('## 3. `lic log list --all -o ndjson`');
md();
const help = spawnSync(process.execPath, [LIC, 'log', 'list', '--help'], { encoding: 'utf8' });
const hasAll = /--all\b/.test(help.stdout);
const gnuTime =
  existsSync('/usr/bin/time') &&
  spawnSync('/usr/bin/time', ['-v', 'true'], { encoding: 'utf8' }).stderr.includes('Maximum resident set size');

/** Runs the CLI with `args`; counts the ndjson lines it writes; peak RSS from GNU time -v, else VmHWM sampled from /proc. */
async function runCli(args) {
  const env = { ...process.env, LIC_BASE_URL: svc.url, LIC_API_KEY: svc.key, LIC_CONFIG_DIR: join(tmp, 'cli-config'), NO_COLOR: '1' };
  const timeFile = join(tmp, `time-${Date.now()}.txt`);
  const argv = gnuTime ? ['/usr/bin/time', '-v', '-o', timeFile, process.execPath, LIC, ...args] : [process.execPath, LIC, ...args];
  const t0 = performance.now();
  const child = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  processes.add(child);
  let lines = 0;
  let stderr = '';
  child.stdout.on('data', (b) => {
    for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) lines++;
  });
  child.stderr.on('data', (d) => (stderr += d));
  let hwm = 0;
  const sampler = gnuTime
    ? undefined
    : setInterval(() => {
        try {
          const kb = Number(readFileSync(`/proc/${child.pid}/status`, 'utf8').match(/VmHWM:\s*(\d+)/)?.[1]);
          if (kb > hwm) hwm = kb;
        } catch {
          /* gone */
        }
      }, 20);
  const code = await new Promise((r) => child.on('exit', (c) => r(c)));
  const ms = performance.now() - t0;
  processes.delete(child);
  if (sampler) clearInterval(sampler);
  if (code !== 0) throw new Error(`lic ${args.join(' ')} exited ${code}: ${stderr.slice(0, 500)}`);
  if (gnuTime) hwm = Number(readFileSync(timeFile, 'utf8').match(/Maximum resident set size \(kbytes\): (\d+)/)?.[1]);
  return { ms, lines, rssMiB: hwm / 1024 };
}

if (!hasAll) {
  md('skipped: --all not available (`lic log list --help` does not list it).');
  say('skipped: --all not available');
} else {
  md(
    `Spawned \`bin/lic.js\` (LIC_BASE_URL/LIC_API_KEY), output piped to a line counter in place of /dev/null, so the count is checked. It pages by id (\`Id < last\`, sorted Id desc, 1000 per page). Peak RSS ${gnuTime ? 'from GNU `/usr/bin/time -v`' : 'sampled from /proc/<pid>/status VmHWM every 20 ms'}; "one page" is \`lic log list --take 1 -o ndjson\`, the CLI's own footprint.`,
  );
  md();
  md('| run | entries | time | entries/s | peak RSS |');
  md('| --- | ---: | ---: | ---: | ---: |');
  // what the totals of a walk would cost if each page counted the rest of the log (as before)
  const maxId = ro.prepare('SELECT max(id) FROM log').pluck().get();
  const restCount = ro.prepare('SELECT count(*) FROM log l WHERE l.id < ?').pluck();
  const samples = Array.from({ length: 10 }, (_, i) => Math.round(((i + 0.5) / 10) * maxId));
  const perPageCount = samples.reduce((a, n) => a + timeIt(() => restCount.get(n), 1), 0) / samples.length;
  const base = await runCli(['log', 'list', '--take', '1', '-o', 'ndjson', '-q']);
  md(`| one page | ${int(base.lines)} | ${f1(base.ms / 1000)} s | – | ${f1(base.rssMiB)} MiB |`);
  const tenth = Math.round(ROWS / 10);
  for (const [name, args, want] of [
    [`--all --limit ${tenth}`, ['--limit', String(tenth)], tenth],
    ['--all (the whole log)', [], null],
    ['--all --level Warning', ['--level', 'Warning'], null],
    ['--all --since (last 7 days)', ['--since', since7], null],
  ]) {
    say(`lic log list ${name}`);
    const expected =
      want ??
      (
        await call(
          svc,
          'GET',
          `/v1/log${qs({ take: 0, ...(args[0] === '--level' ? { filter: WARN } : {}), ...(args[0] === '--since' ? { startDate: since7 } : {}) })}`,
        )
      ).body.totalLogEntriesCount;
    const r = await runCli(['log', 'list', '--all', '-o', 'ndjson', '-q', ...args]);
    if (r.lines !== expected) throw new Error(`lic log list ${name}: ${r.lines} lines, expected ${expected}`);
    md(`| ${name} | ${int(r.lines)} | ${f1(r.ms / 1000)} s | ${int(r.lines / (r.ms / 1000))} | ${f1(r.rssMiB)} MiB |`);
  }
  md();
  const pages = Math.ceil(ROWS / 1000);
  md(
    `Each page after the first asks \`Id < last\`, a new filter, so its total can't come from the cache; the service derives it from the previous page's (old total minus the entries between the two bounds). Counting instead, as before, would cost a \`count(*)\` of the rest of the log per page: ${f1(perPageCount)} ms on average (sampled at 10 bounds), about ${f1((perPageCount * pages) / 1000)} s more over the ${int(pages)} pages of the whole log.`,
  );
}
md();

// ---------------------------------------------------------------------------------------
// 5. purge

md('## 4. Purge');
md();
/** Sequential reads of a Warning page while `work` runs; latencies in ms. */
async function readWhile(work) {
  const lat = [];
  let done = false;
  const reader = (async () => {
    for (let i = 0; !done; i++) lat.push((await call(svc, 'GET', `/v1/log${qs({ filter: WARN, take: 100 })}`)).ms);
  })();
  const t0 = performance.now();
  const result = await work();
  const ms = performance.now() - t0;
  done = true;
  await reader;
  return { ms, lat, result };
}
say('readers, idle');
const idle = await readWhile(() => sleep(3000));
/** A purge while the reader reads; then the entries left (less the purge's own audit entry). */
async function purgeWhileReading(query) {
  const r = await readWhile(() => call(svc, 'DELETE', `/v1/log${query}`));
  const left = (await call(svc, 'GET', '/v1/log?take=0')).body.totalLogEntriesCount - 1;
  return { ...r, left };
}
/** Stops the service, starts it again on a fresh copy of the log as built. */
let copies = 0;
async function onFreshCopy() {
  await svc.stop();
  const file = join(tmp, `log-purge-${++copies}.db`);
  for (const old of [`log-purge-${copies - 1}.db`, `log-purge-${copies - 1}.db-wal`, `log-purge-${copies - 1}.db-shm`])
    rmSync(join(tmp, old), { force: true });
  copyFileSync(DB_PRISTINE, file);
  svc = await startServe(file);
}
// which way routes/log.ts purges a date range: truncation when it keeps at most TRUNCATE_KEEP_MAX (50,000) entries and a fifth of the log
const how = (r) => (r.left <= 50_000 && r.left * 4 <= r.result.body.deletedLogCount ? 'truncated, the rest put back' : 'windows');
const allBut = (ms) => qs({ startDate: iso(START - DAY), endDate: iso(END - ms) });
say('purge by date range of all but the newest hour');
const hour = await purgeWhileReading(allBut(H));
ro.close();
await onFreshCopy();
say('purge by date range of all but the newest day, on a copy');
const day = await purgeWhileReading(allBut(DAY));
await onFreshCopy();
say('purge by date range of all but the newest week, on a copy');
const week = await purgeWhileReading(allBut(7 * DAY));
await onFreshCopy();
say('purge by date range of everything, on a copy');
const whole = await purgeWhileReading(qs({ startDate: iso(START - DAY), endDate: iso(END + DAY) }));
await onFreshCopy();
say('deleteAll on a copy');
const all = await purgeWhileReading('?deleteAll=true');
await svc.stop();
md(
  `A reader asks for a Warning page of 100 over and over (one at a time) while the purge runs; "idle" is the same reader for 3 s with no purge. A date range (no filter) that leaves at most 50,000 entries and at most a fifth of the log is purged in one transaction: the survivors copied aside, the log truncated (SQLite frees its pages wholesale), the survivors put back with their ids, indexes and count triggers made again; the reader waits once, for that transaction ("reader max"). A range that leaves more, or a filter, deletes row by row in windows of 2000, yielding to other requests between windows. deleteAll truncates. Each row starts from the full log of ${int(ROWS)} entries (the first, from the log sections 1–3 ran on).`,
);
md();
md('| operation | entries deleted | entries left | time | entries/s | reads meanwhile | reader p50 | reader p99 | reader max |');
md('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
const purgeRow = (name, r) =>
  md(
    `| ${name} | ${int(r.result.body.deletedLogCount)} | ${int(r.left)} | ${f1(r.ms / 1000)} s | ${int(r.result.body.deletedLogCount / (r.ms / 1000))} | ${int(r.lat.length)} | ${f1(median(r.lat))} ms | ${f1(pct(r.lat, 99))} ms | ${f1(Math.max(...r.lat))} ms |`,
  );
md(
  `| idle (no purge) | – | – | 3 s | – | ${int(idle.lat.length)} | ${f1(median(idle.lat))} ms | ${f1(pct(idle.lat, 99))} ms | ${f1(Math.max(...idle.lat))} ms |`,
);
purgeRow(`\`DELETE /v1/log?startDate=…&endDate=…\`, all but the newest hour (${how(hour)})`, hour);
purgeRow(`\`DELETE /v1/log?startDate=…&endDate=…\`, all but the newest day (${how(day)})`, day);
purgeRow(`\`DELETE /v1/log?startDate=…&endDate=…\`, all but the newest week (${how(week)})`, week);
purgeRow('`DELETE /v1/log?startDate=…&endDate=…`, the whole range (truncated)', whole);
purgeRow('`DELETE /v1/log?deleteAll=true`', all);
md();
md(`Whole run: ${f1((Date.now() - started) / 1000)} s.`);

await agent.close();
const file = join(ROOT, 'bench/results.md');
writeFileSync(file, out.join('\n') + '\n');
process.stdout.write(out.join('\n') + '\n');
say(`wrote ${file}`);
process.exit(0);
