#!/usr/bin/env node
// Where the time of `lic log list --all -o ndjson` goes, on each side: `npm run build` then
// `node bench/stream-profile.mjs`. BENCH_ROWS (default 1,000,000) entries, built or reused
// from BENCH_DB_DIR as bench/run.mjs does. Writes bench/stream-profile.md.
//
// Streams the whole log twice from a `lic serve` on a copy of it: once plain (the speed), once
// with both processes under V8's sampling profiler (--cpu-prof), whose samples are mapped
// through dist/'s source maps to the source file of each function and summed by what that
// file does, in microseconds per entry. Figures only: nothing here asserts a time.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pristineLog } from './log-seed.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
if (!Number.isInteger(ROWS) || ROWS < 10_000) {
  console.error('BENCH_ROWS must be an integer >= 10000');
  process.exit(2);
}
const LIC = join(ROOT, 'bin/lic.js');
const tmp = mkdtempSync(join(os.tmpdir(), 'lic-bench-prof-'));
const DB_DIR = process.env.BENCH_DB_DIR ?? join(tmp, 'pristine');
mkdirSync(DB_DIR, { recursive: true });
const say = (s) => process.stderr.write(`bench: ${s}\n`);
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));
const f1 = (x) => (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : Math.round(x).toLocaleString('en-US'));
const int = (x) => Math.round(x).toLocaleString('en-US');
const env = { ...process.env, LIC_CONFIG_DIR: join(tmp, 'config'), LIC_DATA_DIR: join(tmp, 'data'), NO_COLOR: '1' };

const server = await import(join(ROOT, 'dist/server.cjs'));
say(`the log of ${int(ROWS)} entries`);
const { file } = pristineLog(server, DB_DIR, ROWS);
const work = join(tmp, 'work.db');
copyFileSync(file, work);

/** Spawns node with `args`; resolves with the child and its first stdout line. */
function spawnNode(args, stdio = ['ignore', 'pipe', 'pipe']) {
  const child = spawn(process.execPath, args, { env, stdio });
  children.add(child);
  return child;
}

/** One stream of the whole log: lic serve (profiled when `prof`), then the CLI (likewise); entries, ms, load, the key. Without `key` the database must be new (its key is read from the keys file). */
async function stream(prof, key) {
  const sdir = join(tmp, `serve-${prof}`);
  const cdir = join(tmp, `cli-${prof}`);
  const keys = join(tmp, `keys-${prof}.json`);
  const cpu = (dir) => (prof ? ['--cpu-prof', '--cpu-prof-dir', dir] : []);
  const svc = spawnNode([...cpu(sdir), LIC, 'serve', '--db', work, '--port', '0', '--no-profile', ...(key ? [] : ['--keys-file', keys])]);
  const url = await new Promise((resolve, reject) => {
    let buf = '';
    svc.stdout.on('data', (d) => ((buf += d), buf.includes('\n') && resolve(buf.split('\n')[0].trim())));
    svc.once('exit', (c) => reject(new Error(`lic serve exited ${c}`)));
  });
  for (let i = 0; !key; i++) {
    try {
      key = JSON.parse(readFileSync(keys, 'utf8')).keys[0].key;
    } catch (e) {
      // not written yet
      if (i > 400) throw e;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const load = os.loadavg()[0];
  const t0 = performance.now();
  const cli = spawn(process.execPath, [...cpu(cdir), LIC, 'log', 'list', '--all', '-o', 'ndjson', '-q'], {
    env: { ...env, LIC_BASE_URL: url, LIC_API_KEY: key },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(cli);
  let lines = 0;
  cli.stdout.on('data', (b) => {
    for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) lines++;
  });
  const code = await new Promise((r) => cli.on('exit', r));
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`lic log list exited ${code}`);
  const exited = new Promise((r) => svc.once('exit', r));
  svc.kill('SIGTERM');
  await exited;
  return { lines, ms, load, sdir, cdir, key };
}

say('streaming, plain');
const plain = await stream(false);
say(`${int(plain.lines / (plain.ms / 1000))} entries/s; streaming, profiled`);
const prof = await stream(true, plain.key);

// ---------------------------------------------------------------------------------------
// the profiles: self time per function, mapped to its source file, summed by what the file does

const maps = new Map();
/** The source file of `url:line:column` (0-based) of dist/, through its source map; else the url. */
function sourceOf(url, line, column) {
  if (!url.startsWith('file://') || !url.includes('/dist/')) return url;
  const path = fileURLToPath(url);
  if (!maps.has(path)) {
    try {
      maps.set(path, new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8'))));
    } catch {
      maps.set(path, undefined);
    }
  }
  const entry = maps.get(path)?.findEntry(line, column);
  return entry?.originalSource ? entry.originalSource.replace(/^.*?\/(src|node_modules)\//, '$1/') : url;
}

/** What the time of a frame is: [side-specific rules] → label. First match wins. */
const RULES = {
  service: [
    [(f) => f.name === '(idle)', 'idle (waiting for the client)'],
    [(f) => f.name === '(garbage collector)', 'garbage collection'],
    [
      (f) => /^write(Utf8|Latin1|Generic|v)/.test(f.name) || /stream_base_commons|net\.js|node:net/.test(f.src),
      'writing the reply to the socket (encoding, syscalls)',
    ],
    [(f) => /src\/server\/log\/page\.ts/.test(f.src), 'SQLite: reading the page (better-sqlite3, in logPage)'],
    [(f) => /src\/server\/(list|db)\.ts/.test(f.src), 'rows to records (field values, ISO times)'],
    [(f) => /src\/server\/routes\/log\.ts/.test(f.src), 'JSON.stringify of the reply, the route'],
    [(f) => /src\/server\/log\/|src\/server\/query\//.test(f.src), 'compile, total, partitions'],
    [
      (f) => /node_modules\/(fastify|find-my-way|light-my-request|avvio|@fastify|ajv|fast-json-stringify)/.test(f.src),
      'fastify (routing, validation, hooks)',
    ],
    [(f) => /src\/server\//.test(f.src), 'the service, other (auth, envelope)'],
    [(f) => /node_modules\/better-sqlite3/.test(f.src), 'better-sqlite3 wrappers (transactions)'],
    [() => true, 'Node and start-up, other'],
  ],
  client: [
    [(f) => f.name === '(idle)', 'idle (waiting for the service)'],
    [(f) => f.name === '(garbage collector)', 'garbage collection'],
    [
      (f) => /^write(Utf8|Latin1|Generic|v)/.test(f.name) || /stream_base_commons/.test(f.src),
      'writing ndjson to stdout (encoding, syscalls)',
    ],
    [(f) => /src\/client\/request\.ts/.test(f.src) && f.name === 'interpret', 'JSON.parse of the page'],
    [(f) => /src\/cli\/list\/format\.ts/.test(f.src), 'JSON.stringify of the records (ndjson)'],
    [(f) => /src\/cli\/list\/normalize\.ts/.test(f.src), 'checking records are in the documented shape'],
    [(f) => /undici|src\/client\//.test(f.src) || /^(toString|concat)$/.test(f.name), 'HTTP client (undici), reading the body'],
    [(f) => /src\/cli\//.test(f.src), 'the CLI, other (paging, output)'],
    [() => true, 'Node and start-up, other'],
  ],
};

function summarize(dir, side, entries) {
  const name = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  const p = JSON.parse(readFileSync(join(dir, name), 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const us = p.timeDeltas[i] ?? 0;
    self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + us);
    total += us;
  }
  const cats = new Map();
  const fns = new Map();
  for (const [id, us] of self) {
    const cf = byId.get(id).callFrame;
    const f = { name: cf.functionName || '(anonymous)', src: sourceOf(cf.url, cf.lineNumber, cf.columnNumber) };
    const label = RULES[side].find(([test]) => test(f))[1];
    cats.set(label, (cats.get(label) ?? 0) + us);
    const fn = `${f.name} (${f.src.replace(/^file:\/\/.*\//, '') || 'native'})`;
    fns.set(fn, (fns.get(fn) ?? 0) + us);
  }
  const busy = total - [...cats].filter(([l]) => l.startsWith('idle')).reduce((a, [, us]) => a + us, 0);
  return { total, busy, entries, cats: [...cats].sort((a, b) => b[1] - a[1]), fns: [...fns].sort((a, b) => b[1] - a[1]).slice(0, 12) };
}
const sides = { service: summarize(prof.sdir, 'service', prof.lines), client: summarize(prof.cdir, 'client', prof.lines) };

// ---------------------------------------------------------------------------------------

const out = [];
const md = (s = '') => out.push(s);
md('# Where the time of the stream goes');
md();
md(
  `Generated by \`node bench/stream-profile.mjs\` on ${new Date().toISOString().slice(0, 10)}: \`lic log list --all -o ndjson\` over ${int(ROWS)} entries (bench/log-seed.mjs) from \`lic serve\` on 127.0.0.1, output piped to a line counter; Node ${process.version}, ${os.availableParallelism()} CPUs, shared with other work (load averages below). Figures, not asserts.`,
);
md();
md('| run | entries | time | entries/s | load average (1 min) |');
md('| --- | ---: | ---: | ---: | ---: |');
for (const [name, r] of [
  ['plain', plain],
  ['both processes under --cpu-prof', prof],
]) {
  md(`| ${name} | ${int(r.lines)} | ${f1(r.ms / 1000)} s | ${int(r.lines / (r.ms / 1000))} | ${r.load.toFixed(2)} |`);
}
md();
md(
  "Each process's samples (V8's profiler, one per ~1 ms), by the source file of the function they fall in (dist/ mapped back through its source maps); time in native code (SQLite, the JSON built-ins, socket and pipe writes) counts to the JavaScript function that called it. µs per entry = the time ÷ the entries streamed. The two processes run at once, on the machine's two CPUs: the stream cannot go faster than the busier of the two allows (1,000,000 µs ÷ its busy µs per entry), and only if each has a CPU to itself.",
);
md();
for (const [side, s] of Object.entries(sides)) {
  md(`## ${side === 'service' ? 'The service (`lic serve`)' : 'The CLI (`lic log list`)'}`);
  md();
  md(
    `Busy ${f1(s.busy / 1000)} ms of ${f1(s.total / 1000)} ms sampled: **${f1(s.busy / s.entries)} µs per entry** (at most ${int(1e6 / (s.busy / s.entries))} entries/s on a CPU of its own).`,
  );
  md();
  md('| what | ms | µs per entry | share of busy |');
  md('| --- | ---: | ---: | ---: |');
  for (const [label, us] of s.cats) {
    const idle = label.startsWith('idle');
    md(`| ${label} | ${int(us / 1000)} | ${f1(us / s.entries)} | ${idle ? '–' : `${Math.round((100 * us) / s.busy)} %`} |`);
  }
  md();
  md('Functions with the most samples:');
  md();
  md('| function (source) | ms |');
  md('| --- | ---: |');
  for (const [fn, us] of s.fns) md(`| ${fn.replaceAll('|', '\\|')} | ${int(us / 1000)} |`);
  md();
}
const target = join(ROOT, 'bench/stream-profile.md');
// the analysis below the generated figures is kept from the file as it was (written by hand)
let notes = '';
try {
  const old = readFileSync(target, 'utf8');
  const at = old.indexOf('\n## Why what is left cannot go');
  if (at >= 0) notes = old.slice(at + 1);
} catch {
  /* first run */
}
writeFileSync(target, `${out.join('\n')}\n${notes}`);
process.stdout.write(`${out.join('\n')}\n`);
say(`wrote ${target}`);
process.exit(0);
