#!/usr/bin/env node
// Benchmarks of the log at production scale: `npm run bench` (builds, then runs this).
//   BENCH_ROWS=100000,1000000,10000000   sizes of log, run in turn in this one process and
//                                        reported side by side (default 1000000)
//   BENCH_DB_DIR=dir                     keep each built log there (log-<rows>.db and a .json
//                                        stamp) and reuse it on the next run: a 10M log is built
//                                        once (default: a temp dir, removed at exit)
//   BENCH_STAGES=start,rps,totals,stats,stream,purge   a subset (default all)
// Writes bench/results.md. For each size:
//  1. the log: built (or reused) once as the pristine copy; every stage works on a copy of it;
//  2. `lic serve` cold start on it to the first answered request;
//  3. requests/second of filtered pages (autocannon, 4 connections);
//  4. page and total per filter: the first time, after a write ("cold"), unchanged ("warm");
//  5. `lic log stats` over 30 days by day, spawned;
//  6. `lic log list --all -o ndjson`: entries/s and peak RSS;
//  7. purges with readers meanwhile, each on a fresh copy.
// Figures only: nothing here asserts a time (speed is measured here, never in tests). The
// machine is shared: every table carries the load average when it was measured.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import { END, START, buildLog, pristineLog } from './log-seed.mjs';
import { spawnServe } from './serve-child.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SIZES = String(process.env.BENCH_ROWS ?? 1_000_000)
  .split(',')
  .map(Number);
if (!SIZES.every((n) => Number.isInteger(n) && n >= 10_000)) {
  console.error('BENCH_ROWS must be integers >= 10000, comma-separated');
  process.exit(2);
}
const ALL_STAGES = ['start', 'rps', 'totals', 'stats', 'stream', 'purge'];
const STAGES = new Set(process.env.BENCH_STAGES ? process.env.BENCH_STAGES.split(',') : ALL_STAGES);
const server = await import(join(ROOT, 'dist/server.cjs'));
const LIC = join(ROOT, 'bin/lic.js');
const tmp = mkdtempSync(join(os.tmpdir(), 'lic-bench-'));
const DB_DIR = process.env.BENCH_DB_DIR ?? join(tmp, 'pristine');
mkdirSync(DB_DIR, { recursive: true });
const H = 3_600_000;
const DAY = 24 * H;
const iso = (ms) => new Date(ms).toISOString();
const say = (s) => process.stderr.write(`bench: ${s}\n`);
const f1 = (x) =>
  x === undefined || Number.isNaN(x) ? '–' : x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : Math.round(x).toLocaleString('en-US');
const int = (x) => (x === undefined ? '–' : Math.round(x).toLocaleString('en-US'));
const pct = (xs, p) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const median = (xs) => pct(xs, 50);
const load = () => os.loadavg()[0];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rmDb = (file) => {
  for (const s of ['', '-wal', '-shm']) rmSync(file + s, { force: true });
};
const processes = new Set();
process.on('exit', () => {
  for (const p of processes) p.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

// bench/startup.mjs and bench/serve.mjs reuse the seeder: BENCH_SEED_ONLY=FILE builds the log of BENCH_ROWS entries there and exits
if (process.env.BENCH_SEED_ONLY) {
  buildLog(server, process.env.BENCH_SEED_ONLY, SIZES[0]);
  process.exit(0);
}

// ---------------------------------------------------------------------------------------
// the service, over HTTP

/**
 * Starts `lic serve` on `file` (port 0); resolves with its URL, Administrator key, its spawn
 * time and a stop(). Without `key` the database must be new: its bootstrap key is read from
 * the keys file. `waitCheck` (default): resolves once the background page check of a file over
 * 256 MiB has ended (./serve-child.mjs).
 */
async function startServe(file, key, { waitCheck = true } = {}) {
  const env = { ...process.env, LIC_CONFIG_DIR: join(tmp, 'config'), LIC_DATA_DIR: join(tmp, 'data'), NO_COLOR: '1' };
  const keysFile = join(tmp, `keys-${Date.now()}-${Math.random()}.json`);
  const t0 = performance.now();
  // the cold starts are timed to their first answer, with the page check running
  const svc = await spawnServe(processes, {
    bin: LIC,
    args: ['--db', file, '--no-profile', ...(key ? [] : ['--keys-file', keysFile])],
    env,
    checked: waitCheck,
  });
  for (let i = 0; !key; i++) {
    try {
      key = JSON.parse(readFileSync(keysFile, 'utf8')).keys.find((k) => k.role === 'Administrator').key;
    } catch (e) {
      if (i > 400) throw new Error(`no keys file from lic serve: ${svc.stderr()}`, { cause: e });
      await sleep(5);
    }
  }
  return { url: svc.url, key, t0, stop: svc.stop };
}

const agent = new Agent({ connections: 8 });
/** One request; resolves with parsed body and milliseconds. */
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
// a write through the service (deletes nothing, writes its audit entry, dated now: outside every range here)
const touch = (svc) => call(svc, 'DELETE', '/v1/log?id=2147483647');

// ---------------------------------------------------------------------------------------
// figures: results[rows][key] = { value, text?, load }

const results = new Map(SIZES.map((n) => [n, {}]));
let current;
const put = (key, value, extra = {}) => (current[key] = { value, load: load(), ...extra });

// ---------------------------------------------------------------------------------------
// 1. the log

/** Bytes of the log's tables and indexes, and of its full-text indexes, from SQLite's dbstat. */
function sizes(file) {
  const db = new Database(file, { readonly: true });
  const rows = db
    .prepare("SELECT name GLOB 'log_p*_fts*' AS fts, sum(pgsize) AS bytes FROM dbstat WHERE name GLOB 'log_p*' GROUP BY 1")
    .all();
  const parts = db.prepare('SELECT count(*) FROM log_parts').pluck().get();
  db.close();
  return { log: rows.find((r) => !r.fts)?.bytes ?? 0, fts: rows.find((r) => r.fts)?.bytes ?? 0, parts, file: statSync(file).size };
}

// ---------------------------------------------------------------------------------------
// 2–6 on a working copy

const WARN = 'Level = "Warning"';
const since7 = iso(END - 7 * DAY);
const FILTERS = [
  ['no filter', {}],
  ['`Level = "Warning"`', { filter: WARN }],
  ['date range (7 days)', { startDate: iso(END - 10 * DAY), endDate: iso(END - 3 * DAY) }],
  ['`Level = "Warning"` and startDate (7 days)', { filter: WARN, startDate: since7 }],
  [
    'a filter the counts do not cover: `Level != "Information" and TimeStamp >= …` (10 days)',
    { filter: `Level != "Information" and TimeStamp >= "${iso(END - 10 * DAY)}"` },
  ],
  ['`Message.Contains("denied")` (2.8 % of entries)', { filter: 'Message.Contains("denied")' }],
  ['`Message.Contains("WS-1234")` (0.01 %)', { filter: 'Message.Contains("WS-1234")' }],
  ['`Message.Contains("expires in 3 days")` (0.09 %)', { filter: 'Message.Contains("expires in 3 days")' }],
];

async function cannon(svc, path, setupPath) {
  const opts = { url: svc.url + path, headers: { 'x-api-key': svc.key }, duration: 5, connections: 4 };
  if (setupPath) {
    let i = 0;
    opts.requests = [{ setupRequest: (req) => ({ ...req, path: setupPath(i++) }) }];
  }
  return autocannon(opts);
}

const gnuTime =
  existsSync('/usr/bin/time') &&
  spawnSync('/usr/bin/time', ['-v', 'true'], { encoding: 'utf8' }).stderr.includes('Maximum resident set size');

/** Runs the CLI with `args` against `svc`; counts stdout lines; peak RSS from GNU time -v. */
async function runCli(svc, args) {
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
  const code = await new Promise((r) => child.on('exit', (c) => r(c)));
  const ms = performance.now() - t0;
  processes.delete(child);
  if (code !== 0) throw new Error(`lic ${args.join(' ')} exited ${code}: ${stderr.slice(0, 500)}`);
  const rssMiB = gnuTime ? Number(readFileSync(timeFile, 'utf8').match(/Maximum resident set size \(kbytes\): (\d+)/)?.[1]) / 1024 : NaN;
  return { ms, lines, rssMiB };
}

async function readStages(rows, file) {
  const work = join(tmp, 'work.db');
  rmDb(work);
  copyFileSync(file, work);
  try {
    // the first start makes the Administrator key; the starts after that start on a database in use
    const first = await startServe(work);
    await first.stop();
    if (STAGES.has('start')) {
      const firsts = [];
      for (let i = 0; i < 5; i++) {
        const svc = await startServe(work, first.key, { waitCheck: false });
        await call(svc, 'GET', '/v1/log?take=1');
        firsts.push(performance.now() - svc.t0);
        await svc.stop();
      }
      put('start', median(firsts), { max: Math.max(...firsts) });
      say(`cold start median ${f1(median(firsts))} ms`);
    }
    const svc = await startServe(work, first.key);
    try {
      if (STAGES.has('rps')) {
        await cannon(svc, `/v1/log${qs({ filter: WARN })}`); // warm-up (JIT, page cache)
        const level7 = `/v1/log${qs({ filter: WARN, startDate: since7, endDate: iso(END - DAY) })}`;
        for (const [key, path, setup] of [
          ['rps.levelRange', level7],
          ['rps.default', '/v1/log'],
          ['rps.uncached', '/v1/log', (i) => `/v1/log${qs({ filter: WARN, startDate: iso(END - 7 * DAY + i), endDate: iso(END - DAY) })}`],
        ]) {
          say(`autocannon ${key}`);
          const r = await cannon(svc, path, setup);
          put(key, r.requests.average, { p50: r.latency.p50, p99: r.latency.p99, errors: r.non2xx + r.errors });
        }
      }
      if (STAGES.has('totals')) {
        for (const [i, [name, query]] of FILTERS.entries()) {
          say(`page and total: ${name}`);
          const n = name.includes('Contains') || name.includes('cover') ? 5 : 15;
          const first = await call(svc, 'GET', `/v1/log${qs({ ...query, take: 100 })}`);
          const series = async (take, cold) => {
            const xs = [];
            for (let j = 0; j < n + 1; j++) {
              if (cold) await touch(svc);
              const r = await call(svc, 'GET', `/v1/log${qs({ ...query, take })}`);
              if (j > 0) xs.push(r.ms);
            }
            return median(xs);
          };
          put(`totals.${i}`, await series(100, true), {
            first: first.ms,
            total: first.body.totalLogEntriesCount,
            take0: await series(0, true),
            warm: await series(100, false),
          });
        }
      }
      if (STAGES.has('stats')) {
        // 30 days by day up to a time mid-hour, as `--since 30d` from now: 31 buckets × 6 levels
        const until = END - 11 * H - 1_234_567;
        const args = ['log', 'stats', '--since', iso(until - 30 * DAY), '--until', iso(until), '--by', 'day', '-o', 'csv'];
        const runs = [];
        for (let i = 0; i < 3; i++) {
          await touch(svc);
          runs.push(await runCli(svc, args));
        }
        if (runs[0].lines !== 32) throw new Error(`lic log stats: ${runs[0].lines} lines`);
        put('stats', median(runs.map((r) => r.ms)), { requests: 31 * 6 });
        say(`log stats median ${f1(median(runs.map((r) => r.ms)))} ms`);
      }
      if (STAGES.has('stream')) {
        const total = (await call(svc, 'GET', '/v1/log?take=0')).body.totalLogEntriesCount;
        for (const [key, args, want] of [
          ['stream.tenth', ['--limit', String(Math.round(rows / 10))], Math.round(rows / 10)],
          ['stream.all', [], total],
        ]) {
          say(`lic log list --all ${args.join(' ')}`);
          const r = await runCli(svc, ['log', 'list', '--all', '-o', 'ndjson', '-q', ...args]);
          if (r.lines !== want) throw new Error(`lic log list ${args}: ${r.lines} lines, expected ${want}`);
          put(key, r.lines / (r.ms / 1000), { entries: r.lines, s: r.ms / 1000, rss: r.rssMiB });
        }
      }
    } finally {
      await svc.stop();
    }
  } finally {
    rmDb(work);
  }
}

// ---------------------------------------------------------------------------------------
// 7. purges, each on a fresh copy of the log, with readers meanwhile

/**
 * Two readers (a Warning page of 100, and the default page) and a writer (a DELETE of a missing
 * id, which writes its audit entry), one request at a time each, while `work` runs; the
 * readers' latencies in ms, the writer's, and the writes refused (503: the lock not had in time).
 */
async function readWhile(svc, work) {
  const lat = [];
  const writes = [];
  let refused = 0;
  let done = false;
  const reader = async (path) => {
    while (!done) lat.push((await call(svc, 'GET', path)).ms);
  };
  const writer = async () => {
    while (!done) {
      try {
        writes.push((await touch(svc)).ms);
      } catch {
        refused++;
      }
      await sleep(20);
    }
  };
  const loops = [reader(`/v1/log${qs({ filter: WARN, take: 100 })}`), reader('/v1/log?take=100'), writer()];
  const t0 = performance.now();
  const result = await work();
  const ms = performance.now() - t0;
  done = true;
  await Promise.all(loops);
  return { ms, lat, writes, refused, result };
}

async function purgeStages(file) {
  const cases = [
    // [key, query of DELETE, then: a second purge on what is left]
    [
      'purge.oldest90',
      qs({ startDate: iso(START - DAY), endDate: iso(START + 27 * DAY) }),
      ['purge.filter', qs({ filter: 'Level = "Debug"', startDate: iso(END - DAY) })],
    ],
    ['purge.allButHour', qs({ startDate: iso(START - DAY), endDate: iso(END - H) })],
    ['purge.deleteAll', '?deleteAll=true'],
  ];
  for (const [key, query, then] of cases) {
    const work = join(tmp, 'purge.db');
    rmDb(work);
    say(`copy for ${key}`);
    copyFileSync(file, work);
    const svc = await startServe(work);
    try {
      if (key === 'purge.oldest90') {
        const idle = await readWhile(svc, () => sleep(3000));
        put('purge.idle', idle.lat.length, {
          p50: median(idle.lat),
          p99: pct(idle.lat, 99),
          max: Math.max(...idle.lat),
          writes: idle.writes.length,
          wp99: pct(idle.writes, 99),
          wmax: Math.max(...idle.writes),
          refused: idle.refused,
        });
      }
      // the tables of partitions taken out are dropped after the reply (a worker thread): waited for, and timed
      const drops = new Database(work, { readonly: true, fileMustExist: true });
      const pending = drops.prepare('SELECT count(*) FROM log_drops').pluck();
      for (const [k, q] of [[key, query], ...(then ? [then] : [])]) {
        say(k);
        const t0 = performance.now();
        const r = await readWhile(svc, async () => {
          const reply = await call(svc, 'DELETE', `/v1/log${q}`);
          const replied = performance.now() - t0;
          while (pending.get() > 0) await sleep(20);
          return { body: reply.body, replied };
        });
        const deleted = r.result.body.deletedLogCount;
        const left = (await call(svc, 'GET', '/v1/log?take=0')).body.totalLogEntriesCount;
        put(k, r.result.replied / 1000, {
          dropped: r.ms / 1000,
          writes: r.writes.length,
          wp99: pct(r.writes, 99),
          wmax: Math.max(...r.writes),
          refused: r.refused,
          deleted,
          left,
          reads: r.lat.length,
          p50: median(r.lat),
          p99: pct(r.lat, 99),
          max: Math.max(...r.lat),
        });
      }
      drops.close();
    } finally {
      await svc.stop();
      rmDb(work);
    }
  }
}

// ---------------------------------------------------------------------------------------

const started = Date.now();
const startLoad = os.loadavg();
const builds = new Map();
for (const rows of SIZES) {
  current = results.get(rows);
  say(`the log of ${int(rows)} entries`);
  const p = pristineLog(server, DB_DIR, rows);
  builds.set(rows, { ...p, sizes: sizes(p.file) });
  await readStages(rows, p.file);
  if (STAGES.has('purge')) await purgeStages(p.file);
}
await agent.close();

// ---------------------------------------------------------------------------------------
// the report

const cpu = (() => {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? os.cpus()[0]?.model;
  } catch {
    return os.cpus()[0]?.model;
  }
})();
const sqliteVersion = new Database(':memory:').prepare('SELECT sqlite_version()').pluck().get();
const out = [];
const md = (s = '') => out.push(s);
const label = (n) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);
const cols = SIZES.map(label);
const get = (rows, key) => results.get(rows)[key];
/** A table row: `name`, a cell per size from `cell(fig)`, then the ratio of each size to the one before (of `num(fig)`), then extra cells. */
function row(name, key, cell, num = (f) => f.value, extra = []) {
  const figs = SIZES.map((n) => get(n, key));
  const ratios = SIZES.slice(1).map((_, i) => {
    const [a, b] = [figs[i], figs[i + 1]];
    return a && b && num(a) > 0 ? `${f1(num(b) / num(a))}×` : '–';
  });
  md(
    `| ${name} | ${figs.map((f) => (f ? cell(f) : '–')).join(' | ')} | ${ratios.join(' | ')} |${extra.length ? ` ${extra.join(' | ')} |` : ''}`,
  );
}
const ratioHeads = SIZES.slice(1).map((n, i) => `${label(n)} ÷ ${label(SIZES[i])}`);
function header(first, extra = []) {
  md(`| ${first} | ${cols.join(' | ')} | ${ratioHeads.join(' | ')} |${extra.length ? ` ${extra.join(' | ')} |` : ''}`);
  md(`| --- | ${cols.map(() => '---:').join(' | ')} | ${ratioHeads.map(() => '---:').join(' | ')} |${extra.map(() => ' --- |').join('')}`);
}
/** The load average (1 min) when each size's figures of `keys` were taken: min–max. */
function loadRow(keys) {
  const cells = SIZES.map((n) => {
    const ls = keys.map((k) => get(n, k)?.load).filter((x) => x !== undefined);
    return ls.length ? `${Math.min(...ls).toFixed(1)}–${Math.max(...ls).toFixed(1)}` : '–';
  });
  md(`| *load average (1 min)* | ${cells.join(' | ')} | ${ratioHeads.map(() => '').join(' | ')} |`);
}
const biggest = SIZES[SIZES.length - 1];
const verdict = (ok) => (ok === undefined ? '–' : ok ? 'met' : '**missed**');

md('# Benchmarks: the log at production scale');
md();
md(
  `Generated by \`BENCH_ROWS=${SIZES.join(',')} npm run bench\` (bench/run.mjs) on ${new Date().toISOString().slice(0, 10)}, in one run: every size below was measured by this one process, one size after the other. Figures, not asserts. The machine is shared (other builds and test runs): compare within a table, read the load average beside each figure, and rerun to compare.`,
);
md();
md(
  `Machine: ${os.availableParallelism()} CPUs (nproc), ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM; Node ${process.version}; SQLite ${sqliteVersion}; ${os.platform()} ${os.release()}. Load average at start: ${startLoad.map((x) => x.toFixed(2)).join(' ')}; at the end: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}. Whole run: ${f1((Date.now() - started) / 60000)} min.`,
);
md();
const busiest = Math.max(startLoad[0], os.loadavg()[0]);
if (busiest > os.availableParallelism()) {
  md(
    `**A loaded machine:** the load average (${busiest.toFixed(1)}) was above the ${os.availableParallelism()} CPUs, so every process here waited for a CPU much of the time: these figures are far from what the code does on a quiet machine, and a missed target below may be the load's. Compare with a run on a quiet machine before reading them as a regression.`,
  );
  md();
}

// the targets
const T = (key, fig) => get(biggest, key) && fig(get(biggest, key));
md(`## The targets, at ${label(biggest)}`);
md();
md('| figure | target | at ' + label(biggest) + ' | |');
md('| --- | --- | ---: | --- |');
const targets = [
  ['`lic serve` cold start to the first answered request', '≤ 500 ms', 'start', (f) => `${f1(f.value)} ms`, (f) => f.value <= 500],
  ['filtered page (Level + date range), 4 connections, p99', '≤ 5 ms', 'rps.levelRange', (f) => `${f.p99} ms`, (f) => f.p99 <= 5],
  [
    'total of a filtered list (take=0) after a write: Level, date range, both',
    '≤ 50 ms',
    'totals.3',
    () => `${f1(Math.max(...[1, 2, 3].map((i) => get(biggest, `totals.${i}`).take0)))} ms (the slowest of the three)`,
    () => Math.max(...[1, 2, 3].map((i) => get(biggest, `totals.${i}`).take0)) <= 50,
  ],
  ['`lic log stats --since 30d --by day`', '≤ 2 s', 'stats', (f) => `${f1(f.value / 1000)} s`, (f) => f.value <= 2000],
  [
    '`Message.Contains("denied")` on the whole log: page and total, after a write',
    '≤ 100 ms',
    'totals.5',
    (f) => `${f1(f.value)} ms (the first time: ${f1(f.first)} ms)`,
    (f) => f.value <= 100,
  ],
  ['purge of the oldest 90 %: the reply (the entries gone)', '≤ 5 s', 'purge.oldest90', (f) => `${f1(f.value)} s`, (f) => f.value <= 5],
  ['… until its tables are dropped (the space free)', '≤ 5 s', 'purge.oldest90', (f) => `${f1(f.dropped)} s`, (f) => f.dropped <= 5],
  ['readers meanwhile (until dropped), p99', '≤ 50 ms', 'purge.oldest90', (f) => `${f1(f.p99)} ms`, (f) => f.p99 <= 50],
  [
    '`lic log list --all -o ndjson`, the whole log',
    '≥ 300,000 entries/s',
    'stream.all',
    (f) => `${int(f.value)} entries/s`,
    (f) => f.value >= 300_000,
  ],
  ['… its peak RSS', '≤ 120 MB', 'stream.all', (f) => `${f1(f.rss * 1.048576)} MB`, (f) => f.rss * 1.048576 <= 120],
];
for (const [name, target, key, show, ok] of targets) {
  const f = get(biggest, key);
  md(`| ${name} | ${target} | ${f ? show(f) : '–'} | ${verdict(f ? T(key, ok) : undefined)} |`);
}
md();
md('Where a target is missed, the sections below and [stream-profile.md](stream-profile.md) say where the time goes.');
md();

md('## 1. The log');
md();
md(
  `Entries over 30 days (80 % Information, 8 % Warning, 6 % Debug, 3 % Error, 2.8 % Verbose, 0.2 % Fatal; messages rendered from license-check, floating-license, activation and audit templates), written in time order through the service's own bulk writer (\`writeLogEntries\`: the real schema, a partition per UTC day, the count triggers), then the full-text index built in bulk (\`indexLog\`, what the service does in the background). Built once per size and kept in BENCH_DB_DIR when set; each stage below works on a copy.`,
);
md();
header('');
for (const [name, cell] of [
  ['entries written (s)', (b) => `${f1(b.stamp.insertMs / 1000)} s`],
  ['entries/s', (b) => int(b.stamp.rows / (b.stamp.insertMs / 1000))],
  ['full-text index built (s)', (b) => `${f1(b.stamp.indexMs / 1000)} s`],
  ['partitions', (b) => int(b.sizes.parts)],
  ['tables and indexes (MiB)', (b) => f1(b.sizes.log / 2 ** 20)],
  ['full-text indexes (MiB)', (b) => f1(b.sizes.fts / 2 ** 20)],
  ['database file (MiB)', (b) => f1(b.sizes.file / 2 ** 20)],
  ['built on', (b) => `${b.stamp.date.slice(0, 10)}${b.reused ? ' (kept from an earlier run)' : ''}, load ${b.stamp.load.toFixed(1)}`],
]) {
  md(`| ${name} | ${SIZES.map((n) => cell(builds.get(n))).join(' | ')} | ${ratioHeads.map(() => '').join(' | ')} |`);
}
md();

if (STAGES.has('start')) {
  md('## 2. `lic serve` cold start');
  md();
  md(
    'From spawning `lic serve --db FILE --port 0` on a copy of the log (already in use once) to the end of the reply to `GET /v1/log?take=1`; median and slowest of 5 starts. Target ≤ 500 ms.',
  );
  md();
  header('');
  row('to the first answer, median', 'start', (f) => `${f1(f.value)} ms`);
  row(
    'slowest',
    'start',
    (f) => `${f1(f.max)} ms`,
    (f) => f.max,
  );
  loadRow(['start']);
  md();
}

if (STAGES.has('rps')) {
  md('## 3. Requests per second: a filtered page of 100');
  md();
  md(
    'autocannon, 5 s each, 4 connections, against 127.0.0.1 (autocannon and the service share the CPUs). "Uncached" moves startDate by a millisecond on every request, so every total is computed afresh (from the hour counts). Target for Level and a date range: p99 ≤ 5 ms.',
  );
  md();
  header('request', []);
  for (const [name, key] of [
    ['`Level = "Warning"`, last 7 days: requests/s', 'rps.levelRange'],
    ['no filter (default sort): requests/s', 'rps.default'],
    ['`Level = "Warning"`, a startDate that moves every request: requests/s', 'rps.uncached'],
  ]) {
    row(name, key, (f) => int(f.value));
    row(
      '… latency p50 / p99',
      key,
      (f) => `${f.p50} / ${f.p99} ms`,
      (f) => f.p99,
    );
  }
  loadRow(['rps.levelRange', 'rps.default', 'rps.uncached']);
  md();
}

if (STAGES.has('totals')) {
  md('## 4. A page and its total');
  md();
  md(
    'Per request over HTTP, page of 100 (take=100) or the total alone (take=0). "First": the first time the service is asked that filter (nothing counted yet). "After a write": the service writes a log entry before each request (a DELETE of a missing id, which writes its audit entry), as a live service does all the time, so no total of the whole log can be reused: what is reused are the counts of partitions the write did not touch. "Unchanged": the request repeated on an unchanged log. Median of 15 (5 for the slow filters). Targets: the total of a filtered list ≤ 50 ms; `Message.Contains("denied")`, page and total, ≤ 100 ms.',
  );
  md();
  header('filter, take=100 after a write');
  for (const [i, [name]] of FILTERS.entries()) {
    row(name, `totals.${i}`, (f) => `${f1(f.value)} ms`);
  }
  loadRow(FILTERS.map((_, i) => `totals.${i}`));
  md();
  header('filter, take=0 (the total alone) after a write');
  for (const [i, [name]] of FILTERS.entries())
    row(
      name,
      `totals.${i}`,
      (f) => `${f1(f.take0)} ms`,
      (f) => f.take0,
    );
  md();
  header('filter, take=100, the first time');
  for (const [i, [name]] of FILTERS.entries())
    row(
      name,
      `totals.${i}`,
      (f) => `${f1(f.first)} ms`,
      (f) => f.first,
    );
  md();
  header('filter, take=100, unchanged log');
  for (const [i, [name]] of FILTERS.entries())
    row(
      name,
      `totals.${i}`,
      (f) => `${f1(f.warm)} ms`,
      (f) => f.warm,
    );
  md();
  header('filter: its total');
  for (const [i, [name]] of FILTERS.entries())
    row(
      name,
      `totals.${i}`,
      (f) => int(f.total),
      (f) => f.total,
    );
  md();
}

if (STAGES.has('stats')) {
  md('## 5. `lic log stats`');
  md();
  md(
    '`lic log stats --since T-30d --until T --by day -o csv` (T mid-hour, as `--since 30d` from now: 31 buckets × 6 levels = 186 requests, 6 in flight), the built CLI spawned, process start included; median of 3, a write before each. Target ≤ 2 s.',
  );
  md();
  header('');
  row('wall time', 'stats', (f) => `${f1(f.value)} ms`);
  row(
    'requests/s',
    'stats',
    (f) => int(f.requests / (f.value / 1000)),
    (f) => f.requests / (f.value / 1000),
  );
  loadRow(['stats']);
  md();
}

if (STAGES.has('stream')) {
  md('## 6. `lic log list --all -o ndjson`');
  md();
  md(
    `Spawned \`bin/lic.js\`, output piped to a line counter (so the count is checked). It pages by id (\`Id < last\`, sorted Id desc, 1000 per page, the next page asked for while one is written). Peak RSS ${gnuTime ? 'from GNU `/usr/bin/time -v`' : 'not measured (no GNU time)'}. Targets: ≥ 300,000 entries/s, RSS ≤ 120 MB. Where the time goes: [stream-profile.md](stream-profile.md).`,
  );
  md();
  header('');
  row('a tenth: entries/s', 'stream.tenth', (f) => int(f.value));
  row(
    '… peak RSS',
    'stream.tenth',
    (f) => `${f1(f.rss)} MiB`,
    (f) => f.rss,
  );
  row('the whole log: entries/s', 'stream.all', (f) => int(f.value));
  row(
    '… time',
    'stream.all',
    (f) => `${f1(f.s)} s`,
    (f) => f.s,
  );
  row(
    '… peak RSS',
    'stream.all',
    (f) => `${f1(f.rss)} MiB`,
    (f) => f.rss,
  );
  loadRow(['stream.tenth', 'stream.all']);
  md();
}

if (STAGES.has('purge')) {
  md('## 7. Purge');
  md();
  md(
    'Each on a fresh copy of the log. Two readers ask for a page of 100 over and over (a Warning page and the default page, one request at a time each), and a writer writes an audit entry every 20 ms or so (a DELETE of a missing id), while the purge runs, until the tables it took out are dropped; "idle" is the same for 3 s with no purge. A purge by date takes the partitions wholly inside the range out of the log in one transaction and replies; their tables are dropped after, one partition per transaction, by a worker thread on its own connection (SQLite frees their pages without reading rows). Of a partition it cuts through it deletes the range\'s entries: the rest copied to a new partition when little is left (the old one then dropped likewise), else in windows of 2,000 entries. "The reply": when the entries are gone (counts and totals exact); "until its tables are dropped": when the disk space is free for the log again. Targets for the oldest 90 %: ≤ 5 s, readers\' p99 ≤ 50 ms.',
  );
  md();
  header('');
  const purges = [
    ['idle readers (3 s, no purge)', 'purge.idle', false],
    ['the oldest 90 % (`endDate` 27 days in)', 'purge.oldest90', true],
    ['then `filter=Level = "Debug"` over the newest day (windows)', 'purge.filter', true],
    ['all but the newest hour', 'purge.allButHour', true],
    ['`deleteAll=true`', 'purge.deleteAll', true],
  ];
  for (const [name, key, timed] of purges) {
    if (timed) {
      row(`${name}: the reply`, key, (f) => `${f1(f.value)} s`);
      row(
        '… until its tables are dropped',
        key,
        (f) => `${f1(f.dropped)} s`,
        (f) => f.dropped,
      );
      row(
        '… entries deleted / left',
        key,
        (f) => `${int(f.deleted)} / ${int(f.left)}`,
        (f) => f.deleted,
      );
      row(
        '… entries/s, until dropped',
        key,
        (f) => int(f.deleted / f.dropped),
        (f) => f.deleted / f.dropped,
      );
    } else {
      md(`| ${name} | ${SIZES.map(() => '').join(' | ')} | ${ratioHeads.map(() => '').join(' | ')} |`);
    }
    row(
      '… readers: reads, p50 / p99 / max',
      key,
      (f) => `${int(timed ? f.reads : f.value)}, ${f1(f.p50)} / ${f1(f.p99)} / ${f1(f.max)} ms`,
      (f) => f.p99,
    );
    row(
      '… a writer: writes, p99 / max, refused (503)',
      key,
      (f) => `${int(f.writes)}, ${f1(f.wp99)} / ${f1(f.wmax)} ms, ${int(f.refused)}`,
      (f) => f.wp99,
    );
  }
  loadRow(purges.map((p) => p[1]));
  md();
}

const file = join(ROOT, 'bench/results.md');
writeFileSync(file, out.join('\n') + '\n');
process.stdout.write(out.join('\n') + '\n');
say(`wrote ${file}`);
process.exit(0);
