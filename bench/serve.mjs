#!/usr/bin/env node
// The service side of start-up and streaming: `npm run bench:serve`. Writes bench/serve.md.
// BENCH_ROWS (default 1,000,000) entries, BENCH_RUNS (default 10) cold starts; BENCH_DB=file reuses a log.
//
// 1. cold start: `lic serve` spawned on an existing BENCH_ROWS-entry database, timed from spawn to
//    the URL on stdout and to its first answered request (`GET /v1/log?take=1`, a 200);
// 2. where a start goes: the same steps in-process (import, open + migrate, build the app, listen,
//    first request), median of BENCH_RUNS fresh processes;
// 3. a page of the largest size the contract allows (take=1000, contract §5), as `lic log list
//    --all` asks it (`Id < N`, sorted Id desc): over HTTP, and its SQL alone in SQLite;
// 4. the check of the database's pages in the background (a file over the start's 256 MiB):
//    spawn → first answered request with it, with the check before listening instead
//    (LIC_TEST_QUICK_CHECK_MAX_BYTES raised), and with BENCH_BASE_LIC (a build from before, not
//    checking at all) when given, BENCH_CHECK_RUNS (default 3) each; how long the check takes and how long close()
//    waits when it comes during the check (in-process, dist/server.cjs). BENCH_ONLY=check runs
//    this section alone and replaces it in bench/serve.md, the rest of the file left as it is.
// Figures only: nothing here asserts a time.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import { buildLog } from './log-seed.mjs';
import { spawnServe } from './serve-child.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
if (!Number.isInteger(ROWS) || ROWS < 10_000 || !Number.isInteger(RUNS) || RUNS < 1) {
  console.error('BENCH_ROWS must be an integer >= 10000, BENCH_RUNS >= 1');
  process.exit(2);
}
const LIC = join(ROOT, 'bin/lic.js');
const SERVER = join(ROOT, 'dist/server.cjs');
const tmp = mkdtempSync(join(os.tmpdir(), 'lic-bench-serve-'));
const DB = join(tmp, 'log.db');
const env = { ...process.env, LIC_CONFIG_DIR: join(tmp, 'config'), LIC_DATA_DIR: join(tmp, 'data'), NO_COLOR: '1' };
const say = (s) => process.stderr.write(`bench: ${s}\n`);
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
const ms = (x) => (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : Math.round(x).toLocaleString('en-US'));

const server = await import(SERVER);
// BENCH_DB: a copy of a log built before (by this script or bench/run.mjs), to skip building one
let buildMs;
if (process.env.BENCH_DB) copyFileSync(process.env.BENCH_DB, DB);
else {
  say(`building a log of ${ROWS} entries`);
  const built = buildLog(server, DB, ROWS);
  buildMs = built.insertMs + built.indexMs;
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux; undefined elsewhere). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in clock ticks of 10 ms (USER_HZ 100)
  } catch {
    return undefined;
  }
}

/** Spawns `lic serve` on DB; resolves with spawn→URL and spawn→first 200, in ms, and the URL. */
async function coldStart(key) {
  const keysFile = join(tmp, 'keys.json');
  const t0 = performance.now();
  const svc = await spawnServe(children, { bin: LIC, args: ['--db', DB, '--no-profile', ...(key ? [] : ['--keys-file', keysFile])], env });
  const tUrl = performance.now() - t0;
  key ??= JSON.parse(readFileSync(keysFile, 'utf8')).keys[0].key;
  const res = await request(`${svc.url}/v1/log?take=1`, { headers: { 'x-api-key': key } });
  await res.body.text();
  const tFirst = performance.now() - t0;
  if (res.statusCode !== 200) throw new Error(`first request: ${res.statusCode}`);
  const cpu = cpuMs(svc.child.pid);
  await svc.stop();
  return { tUrl, tFirst, cpu, key, url: svc.url };
}

// the first start bootstraps the Administrator key; the runs after start on an existing database
const { key } = await coldStart(undefined);

// 4. the background check of the pages (run here, before the other sections: BENCH_ONLY=check stops after it)
const CHECK_RUNS = Number(process.env.BENCH_CHECK_RUNS ?? 3);
/** BENCH_BASE_LIC: the bin/lic.js of a build from before the background check (one that does not check a big file at all), for a row to compare with. */
const BASE_LIC = process.env.BENCH_BASE_LIC;
/**
 * Spawn → first answered request (ms) of `lic serve` on DB: `check` true, checked in the
 * background; false, checked before listening (the threshold raised above the file's size);
 * 'base', BASE_LIC's.
 */
async function firstAnswer(check) {
  // the threshold set on both sides of the file's size, so that a smaller BENCH_ROWS takes the same paths
  const childEnv = check === 'base' ? env : { ...env, LIC_TEST_QUICK_CHECK_MAX_BYTES: check ? '0' : String(Number.MAX_SAFE_INTEGER) };
  const t0 = performance.now();
  const svc = await spawnServe(children, { bin: check === 'base' ? BASE_LIC : LIC, args: ['--db', DB, '--no-profile'], env: childEnv });
  const res = await request(`${svc.url}/v1/log?take=1`, { headers: { 'x-api-key': key } });
  await res.body.text();
  const tFirst = performance.now() - t0;
  if (res.statusCode !== 200) throw new Error(`first request: ${res.statusCode}`);
  if ((check === true) !== /checked in the background/.test(svc.stderr()))
    throw new Error(`the background check was ${check === true ? 'not ' : ''}announced: ${svc.stderr()}`);
  await svc.stop();
  return tFirst;
}
const withCheck = [];
const checkFirst = [];
const noCheck = [];
for (let i = 0; i < CHECK_RUNS; i++) {
  withCheck.push(await firstAnswer(true));
  checkFirst.push(await firstAnswer(false));
  if (BASE_LIC) noCheck.push(await firstAnswer('base'));
}
// in a fresh process: the check to its end, then a start closed 1 s into its check
const CHECK = `
const m = await import(${JSON.stringify(SERVER)});
let svc = await m.startService({ dbPath: ${JSON.stringify(DB)}, port: 0 });
const c = await svc.check; await svc.close();
svc = await m.startService({ dbPath: ${JSON.stringify(DB)}, port: 0 });
await new Promise((r) => setTimeout(r, 1000));
const t0 = performance.now(); await svc.close(); const closeMs = performance.now() - t0;
console.log(JSON.stringify({ outcome: c.outcome, checkMs: c.ms, closeMs, stopped: (await svc.check).outcome }));`;
const checks = [];
for (let i = 0; i < Math.min(CHECK_RUNS, 2); i++) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', CHECK], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  checks.push(JSON.parse(r.stdout));
}
say('background check done');
const checkSection = [
  '## 4. The check of the pages in the background',
  '',
  `The database is ${Math.round(statSync(DB).size / 1048576)} MiB, over the 256 MiB checked before listening, so \`lic serve\` checks it (PRAGMA quick_check, table by table) in a worker thread while it serves. ${CHECK_RUNS} starts each way, interleaved, each stopped by SIGTERM after its first answer (which ends the check).`,
  '',
  '| what | median | slowest |',
  '| --- | ---: | ---: |',
  `| spawn → first answered request (\`GET /v1/log?take=1\`, 200), the check running | ${ms(pct(withCheck, 50))} ms | ${ms(Math.max(...withCheck))} ms |`,
  ...(BASE_LIC
    ? [
        `| the same, a build that does not check this file at all (before the background check) | ${ms(pct(noCheck, 50))} ms | ${ms(Math.max(...noCheck))} ms |`,
      ]
    : []),
  `| the same, checked before listening instead (as a file under 256 MiB is; LIC_TEST_QUICK_CHECK_MAX_BYTES above its size) | ${ms(pct(checkFirst, 50))} ms | ${ms(Math.max(...checkFirst))} ms |`,
  `| the check to its end (${checks.map((c) => c.outcome).join(', ')}), in-process | ${ms(
    pct(
      checks.map((c) => c.checkMs),
      50,
    ),
  )} ms | ${ms(Math.max(...checks.map((c) => c.checkMs)))} ms |`,
  `| close() 1 s into the check (${checks.map((c) => c.stopped).join(', ')}): the table being checked finishes, then the worker ends | ${ms(
    pct(
      checks.map((c) => c.closeMs),
      50,
    ),
  )} ms | ${ms(Math.max(...checks.map((c) => c.closeMs)))} ms |`,
  '',
];
if (process.env.BENCH_ONLY === 'check') {
  const file = join(ROOT, 'bench/serve.md');
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf('## 4. The check of the pages in the background');
  const machine = `Section 4 measured on ${new Date().toISOString().slice(0, 10)} by \`BENCH_ONLY=check npm run bench:serve\`: ${os.availableParallelism()} CPUs; Node ${process.version}; load average at end ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}.`;
  writeFileSync(file, `${(at < 0 ? text : text.slice(0, at)).trimEnd()}\n\n${checkSection.join('\n')}\n${machine}\n`);
  say('wrote section 4 of bench/serve.md');
  process.exit(0);
}
const starts = [];
for (let i = 0; i < RUNS; i++) starts.push(await coldStart(key));
say('cold starts done');
const node0 = [];
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  node0.push(performance.now() - t0);
}

// 2. phases, in fresh processes (a module is imported once per process)
const PHASES = `
const t0 = performance.now(); const at = {}; const lap = (k) => (at[k] = performance.now() - t0);
const m = await import(${JSON.stringify(SERVER)}); lap('import dist/server.cjs');
const db = m.openDatabase(${JSON.stringify(DB)}); lap('open the database, migrations');
const app = await m.buildApp({ db, now: () => new Date(), generateKey: () => '', sealSecret: (s) => s }); lap('build the app');
await app.listen({ port: 0, host: '127.0.0.1' }); lap('listen');
const r = await app.inject({ method: 'GET', url: '/v1/log?take=1' }); lap('first request (401: no key)');
console.log(JSON.stringify(at)); await app.close(); db.close();`;
const phaseRuns = [];
for (let i = 0; i < RUNS; i++) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', PHASES], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  phaseRuns.push(JSON.parse(r.stdout));
}
say('phases done');

// 3. pages of 1000, as lic log list --all asks them
const svc = await spawnServe(children, { bin: LIC, args: ['--db', DB, '--no-profile'], env, checked: true });
const agent = new Agent({ connections: 1 });
const PAGES = Math.min(200, Math.floor(ROWS / 1000));
const http = [];
let bytes = 0;
let before;
for (let i = 0; i < PAGES; i++) {
  const filter = before === undefined ? '' : `&filter=${encodeURIComponent(`Id < ${before}`)}`;
  const t0 = performance.now();
  const res = await request(`${svc.url}/v1/log?take=1000&sort=Id%20desc${filter}`, { headers: { 'x-api-key': key }, dispatcher: agent });
  const text = await res.body.text();
  http.push(performance.now() - t0);
  bytes += text.length;
  const body = JSON.parse(text);
  before = body.logEntries.at(-1).id;
}
await svc.stop();
const sqlite = new Database(DB, { readonly: true });
const page = sqlite.prepare(
  'SELECT l.id, l.message, l.message_template, l.level, l.time_stamp, l.exception, l.properties FROM log l WHERE l.id < ? ORDER BY l.id DESC LIMIT 1000',
);
const sql = [];
const max = sqlite.prepare('SELECT max(id) FROM log').pluck().get();
for (let i = 0, b = max + 1; i < PAGES; i++) {
  const t0 = performance.now();
  const rows = page.raw().all(b);
  sql.push(performance.now() - t0);
  b = rows.at(-1)[0];
}
sqlite.close();
say('pages done');

const median = (xs) => pct(xs, 50);
const row = (label, xs) => `| ${label} | ${ms(median(xs))} ms | ${ms(pct(xs, 90))} ms |`;
const phaseNames = Object.keys(phaseRuns[0]);
const lines = [
  '# Benchmarks: `lic serve` start and pages',
  '',
  `Generated by \`npm run bench:serve\` (bench/serve.mjs) on ${new Date().toISOString().slice(0, 10)}${ROWS !== 1_000_000 ? ` with BENCH_ROWS=${ROWS}` : ''}. Figures, not asserts: rerun to compare.`,
  '',
  `Machine: ${os.availableParallelism()} CPUs; Node ${process.version}; load average at end ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(
      ' ',
    )}. The log: ${ROWS.toLocaleString('en-US')} entries (bench/log-seed.mjs${buildMs === undefined ? '' : `, built in ${(buildMs / 1000).toFixed(1)} s`}).`,
  '',
  `## 1. Cold start on an existing ${ROWS.toLocaleString('en-US')}-entry database`,
  '',
  `\`lic serve --db … --port 0\` spawned ${RUNS} times, each stopped by SIGTERM before the next (the check of section 4 running in the background).`,
  '',
  '| from spawn to | median | p90 |',
  '| --- | ---: | ---: |',
  row('`node -e 0` exits (the floor)', node0),
  row(
    'the URL on stdout',
    starts.map((s) => s.tUrl),
  ),
  row(
    'its first answered request (`GET /v1/log?take=1`, 200)',
    starts.map((s) => s.tFirst),
  ),
  ...(starts[0].cpu === undefined
    ? []
    : [
        row(
          'CPU time (user + system) of `lic serve` up to that answer (less sensitive to a busy machine)',
          starts.map((s) => s.cpu),
        ),
      ]),
  '',
  '## 2. Where the in-process part goes',
  '',
  `The start's steps in a fresh \`node\` (ms since the script began, median of ${RUNS}); the CLI's own start-up comes on top.`,
  '',
  '| step | ends at | takes |',
  '| --- | ---: | ---: |',
  ...phaseNames.map((k, i) => {
    const end = median(phaseRuns.map((r) => r[k]));
    const took = median(phaseRuns.map((r) => r[k] - (i === 0 ? 0 : r[phaseNames[i - 1]])));
    return `| ${k} | ${ms(end)} ms | ${ms(took)} ms |`;
  }),
  '',
  '## 3. A page of 1000 (the largest contract §5 allows)',
  '',
  `${PAGES} consecutive pages as \`lic log list --all\` asks them (\`filter=Id < N\`, \`sort=Id desc\`, \`take=1000\`), one connection, from the newest entry down; ${Math.round(bytes / PAGES / 1024)} KiB of JSON per page.`,
  '',
  '| what | median | p90 | entries/s at the median |',
  '| --- | ---: | ---: | ---: |',
  `| over HTTP (request, page, derived total, JSON, response read) | ${ms(median(http))} ms | ${ms(pct(http, 90))} ms | ${Math.round(1000 / (median(http) / 1000)).toLocaleString('en-US')} |`,
  `| its SQL alone in SQLite (better-sqlite3, raw rows) | ${ms(median(sql))} ms | ${ms(pct(sql, 90))} ms | ${Math.round(1000 / (median(sql) / 1000)).toLocaleString('en-US')} |`,
  '',
  ...checkSection,
];
writeFileSync(join(ROOT, 'bench/serve.md'), lines.join('\n'));
say('wrote bench/serve.md');
process.exit(0);
