// Start-up of short commands, the log stream and `lic serve`'s cold start:
// `npm run bench:startup`. Every row is measured beside its baseline in the same run
// (`node -e 0`, a plain node:http script), because the machine is shared and noisy: read
// the ratios. Figures go to bench/startup.md; nothing here asserts a time.
//
// BENCH_RUNS (default 15): runs per short command (medians). BENCH_ROWS (default 1,000,000):
// the log built for the stream and cold-start rows, by bench/run.mjs's seeder.
// Short commands are timed with a Node harness that interleaves the commands round by round,
// or with BENCH_TOOL=hyperfine by hyperfine (installed with apt-get when missing and root).
// BENCH_NODES=/path/node22,/path/node24 repeats them with other Node binaries.
// BENCH_BEFORE=/path/to/an/older/bin/lic.js (another build of lic, e.g. `git archive` of the
// base commit built in a temporary directory) adds its short commands to the same rounds
// and its stream after this one's: before and after side by side, under the same load;
// BENCH_BEFORE_LABEL says in the page which build that is (e.g. "89f44eb, the last stop's").
// BENCH_SEA=1 builds the single executable (scripts/build-sea.mjs, into a temporary
// directory) and adds its rows to the same rounds (it runs its own Node, whatever BENCH_NODES).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnServe } from './serve-child.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/lic.js');
const NODE = process.execPath;
const dir = mkdtempSync(join(os.tmpdir(), 'lic-bench-startup-'));
// the user's own settings must not count: a temporary profile store, no proxy, no extra CAs
const env = { PATH: process.env.PATH, HOME: dir, LIC_CONFIG_DIR: join(dir, 'config'), LIC_CACHE_DIR: join(dir, 'cache'), NO_COLOR: '1' };
const say = (s) => process.stderr.write(`bench: ${s}\n`);
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});
const loadBefore = os.loadavg();
const started = new Date();

/** The Administrator key `lic serve --keys-file FILE` wrote. */
function adminKey(file) {
  for (let i = 0; !existsSync(file) || statSync(file).size === 0; i++) {
    if (i > 400) throw new Error(`no keys file ${file}`);
    spawnSync('sleep', ['0.025']);
  }
  return JSON.parse(readFileSync(file, 'utf8')).keys.find((k) => k.role === 'Administrator').key;
}

/** One GET with node:http; resolves with the status and the parsed JSON body. */
function get(url, key) {
  return new Promise((resolve, reject) => {
    request(url, { headers: { 'x-api-key': key } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(body) }));
    })
      .on('error', reject)
      .end();
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];

// ---------------------------------------------------------------------------------------
// 1. short commands, against `lic serve --seed demo`

const demo = await spawnServe(children, {
  node: NODE,
  bin: BIN,
  env,
  args: ['--db', join(dir, 'demo.db'), '--seed', 'demo', '--keys-file', join(dir, 'demo-keys.json')],
});
const key = adminKey(join(dir, 'demo-keys.json'));
const apiEnv = { LIC_BASE_URL: demo.url, LIC_API_KEY: key };
/** [label, argv after node, extra env, target as [ratio, "to"]] */
const commands = [
  ['`node -e 0` (the floor)', ['-e', '0'], {}],
  [
    '`node one-request.mjs` (plain node:http GET, parse, print)',
    [join(ROOT, 'bench/one-request.mjs')],
    { BASE_URL: demo.url, API_KEY: key },
  ],
  ['`lic --version`', [BIN, '--version'], {}, 1.1],
  ['`lic --help`', [BIN, '--help'], {}, 1.3],
  ['`lic keys --help`', [BIN, 'keys', '--help'], {}, 1.3],
  ['`lic keys list -o json`', [BIN, 'keys', 'list', '-o', 'json'], apiEnv, 1.8, 1.25],
  [
    '`lic log list --level Warning --since 24h -o json`',
    [BIN, 'log', 'list', '--level', 'Warning', '--since', '24h', '-o', 'json'],
    apiEnv,
    1.8,
    1.25,
  ],
  ['`lic keys list -o json` (profile "local" from the store)', [BIN, 'keys', 'list', '-o', 'json'], {}],
];
/** The single executable (BENCH_SEA=1): its rows run it instead of `node` (argvOf). */
const SEA = process.env.BENCH_SEA === '1' ? join(dir, 'lic-sea') : undefined;
if (SEA) {
  say('building the single executable (scripts/build-sea.mjs)');
  const built = spawnSync(NODE, [join(ROOT, 'scripts/build-sea.mjs'), '--out', SEA], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0) throw new Error('scripts/build-sea.mjs failed');
  commands.push(
    ['single executable: `lic-sea --version`', [SEA, '--version'], {}],
    ['single executable: `lic-sea --help`', [SEA, '--help'], {}],
    ['single executable: `lic-sea keys list -o json`', [SEA, 'keys', 'list', '-o', 'json'], apiEnv],
  );
}
/** The program and arguments of a row: the single executable's rows run it, every other row `node`. */
const argvOf = (node, args) => (args[0] === SEA ? [SEA, args.slice(1)] : [node, args]);
const BEFORE = process.env.BENCH_BEFORE;
if (BEFORE) {
  // the older build's own compile cache, so neither evicts the other's
  const cache = { LIC_CACHE_DIR: join(dir, 'cache-before') };
  commands.push(
    ['before: `lic --version`', [BEFORE, '--version'], cache],
    ['before: `lic --help`', [BEFORE, '--help'], cache],
    ['before: `lic keys list -o json`', [BEFORE, 'keys', 'list', '-o', 'json'], { ...apiEnv, ...cache }],
  );
}
// the profile store is written by `lic serve` (profile "local"); check each command works before timing it
for (const [label, args, extra] of commands) {
  const r = spawnSync(...argvOf(NODE, args), { env: { ...env, ...extra }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${label} exited ${r.status}: ${r.stderr}`);
}

function hasHyperfine() {
  if (spawnSync('hyperfine', ['--version']).status === 0) return true;
  if (process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0) {
    say('installing hyperfine (apt-get)');
    spawnSync('apt-get', ['install', '-y', '-qq', 'hyperfine'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    return spawnSync('hyperfine', ['--version']).status === 0;
  }
  return false;
}

/** Wall times in ms of each command, RUNS each: hyperfine, one command after the other (env per command through `env`). */
function timeWithHyperfine(node) {
  const json = join(dir, 'hyperfine.json');
  const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
  const cmdLines = commands.map(([, args, extra]) =>
    ['env', ...Object.entries(extra).map(([k, v]) => `${k}=${v}`), ...argvOf(node, args).flat()].map(q).join(' '),
  );
  const r = spawnSync('hyperfine', ['-N', '--warmup', '3', '--runs', String(RUNS), '--export-json', json, ...cmdLines], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`hyperfine exited ${r.status}`);
  return JSON.parse(readFileSync(json, 'utf8')).results.map((x) => x.times.map((t) => t * 1000));
}

/**
 * The same with Node: round by round, each command once per round, so a busy moment hits all
 * alike; every other round in the reverse order, so that no command always follows the same
 * one (a run right after another request to the same service is slower than one after a pause).
 */
function timeWithNode(node) {
  const times = commands.map(() => []);
  const order = commands.map((_, i) => i);
  for (let round = -3; round < RUNS; round++) {
    (round % 2 ? [...order].reverse() : order).forEach((i) => {
      const [label, args, extra] = commands[i];
      const t = process.hrtime.bigint();
      const r = spawnSync(...argvOf(node, args), { env: { ...env, ...extra }, stdio: 'ignore' });
      if (r.status !== 0) throw new Error(`${label} exited ${r.status}`);
      if (round >= 0) times[i].push(Number(process.hrtime.bigint() - t) / 1e6);
    });
  }
  return times;
}

// the Node harness by default: on a shared machine whose load comes and goes, rounds that
// interleave the commands compare them fairly; hyperfine runs one command's block after another
const useHyperfine = process.env.BENCH_TOOL === 'hyperfine' && hasHyperfine();
say(`short commands, ${RUNS} runs each (${useHyperfine ? 'hyperfine' : 'Node harness'})`);
// `env NAME=... node ...` (hyperfine's way to set env per command) costs an exec: the floor row pays it too
const times = useHyperfine ? timeWithHyperfine(NODE) : timeWithNode(NODE);
// BENCH_NODES=/path/to/node22,/path/to/node24: the same table with other Node binaries (the service stays on this one)
const otherNodes = (process.env.BENCH_NODES ?? '').split(',').filter(Boolean);
const otherTimes = otherNodes.map((node) => {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  say(`short commands on Node ${version}`);
  return { version, times: useHyperfine ? timeWithHyperfine(node) : timeWithNode(node) };
});
await demo.stop();

// ---------------------------------------------------------------------------------------
// 2. the log stream and 3. cold start, on a log of ROWS entries

say(`building a log of ${ROWS.toLocaleString('en-US')} entries (bench/run.mjs's seeder)`);
const db = join(dir, 'log.db');
const seeded = spawnSync(NODE, [join(ROOT, 'bench/run.mjs')], {
  env: { ...process.env, BENCH_ROWS: String(ROWS), BENCH_SEED_ONLY: db },
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (seeded.status !== 0) throw new Error('seeding failed');
const logKeys = join(dir, 'log-keys.json');
let svc = await spawnServe(children, {
  node: NODE,
  bin: BIN,
  args: ['--db', db, '--no-profile', '--keys-file', logKeys],
  env,
  checked: true,
});
const logKey = adminKey(logKeys);
const total = (await get(`${svc.url}/v1/log?take=0`, logKey)).body.totalLogEntriesCount;
const gnuTime = spawnSync('/usr/bin/time', ['-v', 'true'], { encoding: 'utf8' }).stderr?.includes('Maximum resident set size');

/** `lic log list --all -o ndjson ARGS > /dev/null`: seconds and peak RSS (MiB, GNU time -v; else VmHWM sampled from /proc). */
async function stream(args, bin = BIN) {
  const timeFile = join(dir, 'time.txt');
  const argv = [NODE, bin, 'log', 'list', '--all', '-o', 'ndjson', '-q', ...args];
  const t0 = performance.now();
  const child = spawn(gnuTime ? '/usr/bin/time' : argv[0], gnuTime ? ['-v', '-o', timeFile, ...argv] : argv.slice(1), {
    env: { ...env, LIC_BASE_URL: svc.url, LIC_API_KEY: logKey },
    stdio: ['ignore', openSync('/dev/null', 'w'), 'inherit'],
  });
  let hwm = 0;
  const sampler = setInterval(() => {
    try {
      hwm = Math.max(hwm, Number(readFileSync(`/proc/${child.pid}/status`, 'utf8').match(/VmHWM:\s*(\d+)/)?.[1] ?? 0));
    } catch {
      // gone
    }
  }, 20);
  const code = await new Promise((r) => child.once('exit', r));
  const s = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  if (code !== 0) throw new Error(`lic log list --all ${args.join(' ')} exited ${code}`);
  if (gnuTime) hwm = Number(readFileSync(timeFile, 'utf8').match(/Maximum resident set size \(kbytes\): (\d+)/)[1]);
  return { s, rss: hwm / 1024 };
}
const tenth = Math.round(total / 10);
say(`lic log list --all --limit ${tenth}`);
const small = await stream(['--limit', String(tenth)]);
say('lic log list --all');
const whole = await stream([]);
let wholeBefore;
if (BEFORE) {
  say('lic log list --all (BENCH_BEFORE)');
  wholeBefore = await stream([], BEFORE);
}
await svc.stop();

say('lic serve cold starts');
const cold = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  svc = await spawnServe(children, {
    node: NODE,
    bin: BIN,
    env,
    args: ['--db', db, '--no-profile', '--keys-file', join(dir, `cold-${i}.json`)],
  });
  const r = await get(`${svc.url}/v1/log?take=1`, logKey);
  if (r.status !== 200) throw new Error(`first request after a cold start: ${r.status}`);
  cold.push(performance.now() - t0);
  await svc.stop();
}

// ---------------------------------------------------------------------------------------
// 4. the import budget: what each part of the bundle costs to load, after what comes before it

say('import costs');
/** Median of the ms that `code` (a script for `node -e`) writes to stdout, over fresh processes; `what` names it in an error. */
function msOf(code, what) {
  const xs = [];
  for (let i = 0; i < Math.max(5, Math.min(RUNS, 11)); i++) {
    const r = spawnSync(NODE, ['-e', code], { env, encoding: 'utf8', cwd: ROOT });
    if (r.status !== 0) throw new Error(`${what}: ${r.stderr}`);
    xs.push(Number(r.stdout));
  }
  return median(xs);
}
/**
 * Median ms of `require(file)` in a fresh process (no code cache), after requiring each of
 * `before`; `use` (an expression on \`m\`, the module) runs inside the timing, e.g. a
 * vendor file's getter that initialises the package.
 */
function requireCost(file, before = [], use = '') {
  const code = `${before.map((b) => `require(${JSON.stringify(b)});`).join('')}const t = performance.now(); const m = require(${JSON.stringify(file)}); ${use}; process.stdout.write(String(performance.now() - t));`;
  return msOf(code, `require ${file}`);
}
/** requireCost's figure for a noun's bundle, which is one function expression (scripts/build.mjs): loaded by bin/lic.js's own requireWithCache, without its code cache. */
function nounBundleCost(file) {
  const code = `const { requireWithCache } = require(${JSON.stringify(join(ROOT, 'bin/lic.js'))}); const t = performance.now(); requireWithCache(${JSON.stringify(file)}, true); process.stdout.write(String(performance.now() - t));`;
  return msOf(code, file);
}
const cli = join(ROOT, 'dist/cli.cjs');
const vendor = (name) => join(ROOT, `dist/vendor/${name}.cjs`);
const budget = [
  [
    "the bundle at start, `dist/cli.cjs` (commander, every verb's flags, the renderer; lazy parts not run)",
    requireCost(cli),
    'a command line that names no noun (`lic completion`, `lic help`, a typo)',
    0.3,
  ],
  [
    "a noun's bundle at start, `dist/cli-keys.cjs` (dist/cli.cjs without the other nouns)",
    nounBundleCost(join(ROOT, 'dist/cli-keys.cjs')),
    '`lic keys ...` (each noun but completion has its own)',
    0.3,
  ],
  [
    'HTTP client: `dist/vendor/undici.cjs` (Agent, request API, errors)',
    requireCost(vendor('undici'), [cli], "m['undici'].Agent"),
    'requests through a proxy, with an extra CA or to https:// (a plain http:// request uses node:http)',
    0.25,
  ],
  ['conf (profile writes): `dist/vendor/conf.cjs`', requireCost(vendor('conf'), [cli], "m['conf']"), '`profile add/use/remove`', 0.6],
  [
    'the service, `dist/server.cjs` (fastify, ajv, swagger, better-sqlite3)',
    requireCost(join(ROOT, 'dist/server.cjs'), [cli]),
    '`lic serve`',
    4,
  ],
  ['for comparison: the whole `undici` package from node_modules, unbundled', requireCost('undici'), 'nothing (no longer loaded)', null],
];

// ---------------------------------------------------------------------------------------
// bench/startup.md

const ms = (x) => `${Math.round(x)} ms`;
const int = (x) => Math.round(x).toLocaleString('en-US');
const verdict = (ok) => (ok ? 'met' : '**not met**');
/** The rows of the short-command table for one Node binary's times (same order as `commands`). */
function shortTable(times) {
  // the median of the ratios of each round's pair (this row's run ÷ the baseline's run of the same round)
  const ratio = (i, j) => median(times[i].map((t, k) => t / times[j][k]));
  return [
    '| command | median | p90 | ÷ `node -e 0` | ÷ node:http script | target | |',
    '| --- | ---: | ---: | ---: | ---: | --- | --- |',
    ...commands.map(([label, , , target, toPlain], i) => {
      const m = median(times[i]);
      const r0 = ratio(i, 0);
      const r1 = ratio(i, 1);
      const want = target ? `≤ ${target.toFixed(2)}×${toPlain ? ` and ≤ ${toPlain.toFixed(2)}× the script` : ''}` : '';
      const ok = target ? verdict(r0 <= target && (!toPlain || r1 <= toPlain)) : '';
      return `| ${label} | ${ms(m)} | ${ms(p90(times[i]))} | ${i === 0 ? '–' : r0.toFixed(2)} | ${i >= 2 ? r1.toFixed(2) : '–'} | ${want} | ${ok} |`;
    }),
  ];
}

/** What was found while cutting the start-up: why a target is not met, and the levers tried. */
const NOTES = `## Notes (why the targets above are or are not met)

- Issue 30, sixth pass (Node 26). A run's one young-generation collection (V8's is 1 MiB;
  lic's run fills it once) took 0.7–1.0 ms in half the runs and 3.5–4 ms in the others: V8
  splits it with a helper thread, which on two cores, with the service answering on the other,
  gets a core a time slice later (\`--no-parallel-scavenge\` and \`--single-threaded-gc\` make
  them ~1 ms; \`--no-concurrent-sparkplug\` does not, so the fifth pass's Sparkplug reading was
  wrong). Once its API client is loaded, lic sets \`--no-parallel-scavenge\` through node:v8
  (src/cli/system.ts; 0.4 ms then, 1.6 ms at start); a collector flag is not part of V8's
  code-cache check (test/cli/gc-flags.test.ts). Whether a run's collection was fast depended
  on where it landed, which incidental allocation moves (the same build of 2d77597 had 10 of
  14 slow collections in one directory, 2 of 14 in another); with the flag all 14 take
  1.0–1.2 ms. 201 alternating rounds of \`keys list -o json\`: 1.828× → 1.746× where the
  collection landed badly, 1.754× → 1.749× where it landed well; three runs of this page
  1.75×, 1.78×, 1.75× (2d77597 1.82×, 1.78×, 1.81×). The stream moves within its noise (1M
  entries, 8 runs each: 2.40–2.62 s against 2.47–2.57 s; the three pages 391,000, 341,000,
  353,000/s against 380,000, 359,000, 357,000). The log row (1.87× on the last stop's page; 1.83×, 1.81×, 1.83×)
  is just over its target (not met): its query costs the service 0.4–0.5 ms more and its 41 KB reply
  is parsed, normalised and printed. Allocating less, to
  have no collection at all, was tried and left (docs/benchmarks.md): lazy namespaces −20 KB,
  options declared only when named −39 KB, and smaller cuts; all together ~990 KB remain,
  against the ~980 KB where the collection comes.
- Issue 30, fifth pass (Node 26). What changed: the stand-ins of lazy built-ins
  (scripts/lazy-builtins.mjs) answer names through their prototype instead of a getter each,
  so esbuild's __toESM copies nothing (~88 KB less of V8's young generation, the bundle phase
  −0.27 ms); bin/lic.js reads dist/help.json only for a command line of a help page's shape
  (\`lic keys list\` no longer parses its 46 KB, ~107 KB), takes Node's Module class from
  \`module.constructor\`, keeps its explanations in docs/architecture.md (~24 KB less young
  memory) and, once the command is done and only the standard streams are left, ends with
  process.exit() (exitWhenIdle), skipping Node's teardown of the environment and heap. On the
  real builds side by side (151–201 alternating rounds, stdout on /dev/null as here): the early
  end −0.5 ms (1.831× → 1.825×), \`keys list -o json\` 1.836× → 1.830× against 162cfc9,
  \`lic keys list\` with no flag 1.842× → 1.804×; four runs of this page (this one the
  last) 1.80–1.82× against that build's 1.82–1.85×. (A timeline harness whose marks in bin/lic.js make Node's own end
  dearer had shown 1.76–1.78×.) What is left over the one-GET script is mostly one scavenge: V8's
  young generation is 1 MiB, Node's start fills ~350 KB of it and lic's run ~700 KB more, so
  one minor collection lands while the request is being sent. PerformanceObserver 'gc'
  entries (no V8 flag: a flag such as --trace-gc makes V8 refuse the code cache made without
  it) put it at 0.6–1.1 ms in some runs and 3.5–4 ms in others; without it
  (\`--min-semi-space-size=2\`, 101 rounds) the run is 3.1 ms shorter, 1.74× → 1.63×. The slow
  collections wait for V8's concurrent baseline compiler (Sparkplug):
  \`--no-concurrent-sparkplug\` makes every one ~1 ms, but the run is no shorter, as that
  compiling then happens on the main thread (101 rounds: 1.767× → 1.770×). Avoiding
  it would take ~130–150 KB less young allocation, and what remains is spread thin: commander
  ~60 KB as it loads (its classes; its first Command object ~18 KB of first-time object
  shapes), building the program ~85, parsing ~34, the bundle's module wrappers ~25, node:http
  ~165 as in the script. Tried and left: namespace objects made on first use (−2 KB),
  identifiers minified (−9 KB), a single-threaded scavenge set at run time (needs node:v8,
  whose loading cost what it saved), the reply body read by events instead of for-await
  (−0.3 ms in the body phase, no change in the whole run).

- Issue 30, fourth pass (Node 26): a bundle per noun. A command line that names a noun (first,
  or after root flags) runs dist/cli-NOUN.cjs, the whole CLI without the other nouns' modules
  (scripts/build.mjs; bin/lic.js picks it with dist/version.json's \`nouns\` and \`rootFlags\`
  and src/cli/command-line.ts, the function buildProgram uses); anything else (\`help\`,
  \`completion\`, a typo) runs dist/cli.cjs. For \`keys list\` the file V8 reads, wraps and
  keeps in its young generation went from 704 to 342 KB and its code cache from 377 to ~280 KB;
  string-width and wrap-ansi (with ansi-styles, color-convert, emoji-regex: ~50 KB that only
  a terminal table runs) moved to dist/vendor/. In the timeline (medians of 31–41 runs, ms):
  the bundle phase 6.6–6.8 → 4.5–4.7 (enabling Node's compile cache 0.2, reading the code cache
  0.2, the source 0.7, deserialising 1.5, the top level 1.1), the rest of the run unchanged;
  the whole run 0.6–1.8 ms less than the build before in the same rounds. One scavenge left
  (was two): V8's young generation starts at ~1 MB and Node's own start fills ~400 KB of it.
  Where the other ~9 ms over a CommonJS one-GET script go: the bundle 4.5, building the program
  and parsing the command line ~1, the request's set-up and process.stdout ~0.3 each beyond the
  script's, the body (for-await, JSON.parse, the writer) ~1, the scavenge ~0.8. The cost:
  14 copies of the shared half, the tarball 1.4 → 2.6 MB packed (docs/installing.md).
  Then each noun's bundle was written as bin/lic.js compiles it: one function expression
  (CommonJS's wrapper already round the code, so no 340 KB copy by Module.wrap) without
  whitespace (keys 342 → 220 KB; with LIC_DEBUG=1, for stack traces, lic runs the readable
  dist/cli.cjs), and Node's compile cache is switched on at the first require of a file
  instead of at every start (\`keys list\` over http:// requires none): the bundle phase a
  further −0.56 ms, −0.47 ms a run in 81 alternating rounds, 1.87× → 1.86× beside the build
  before it in one bench run; the tarball 2.3 MB.
  The harness now runs every other round in reverse order: in a timeline run one build measured
  1.74× first in its round and 1.86× third, so a fixed order charged whatever a position costs
  to the same command every round.

- Issue 30, third pass (Node 26). What changed, each measured in the same process timeline
  (hrtime marks from bin/lic.js to the end of main(), medians of 30 alternating runs) and as a
  whole with the CPU time of 101 interleaved rounds beside \`node -e 0\` (CPU time: a
  loaded machine stretches it less than wall time). Together \`keys list -o json\`
  2.035× → 1.971× \`node -e 0\` in CPU time (load ~1.7):
  - dist/cli.cjs is ASCII only (scripts/build.mjs asciiOnly): esbuild escapes non-ASCII in
    strings but not in regular-expression literals or comments, and one \`•\` made V8 hold
    the whole 690 KB bundle as two-byte text, which Node decodes by its slow path: reading it
    took 1.84–2.03 ms, now 0.89–0.98;
  - a noun loads only the verb its command line names (src/cli/noun.ts, each noun's
    \`defineNoun\`): \`keys list\` no longer initialises and declares \`create\`,
    \`update\`, \`delete\` and \`rotate\` (the bundle's load 8.2 → 7.15 ms and the program's
    build 1.4 → 1.1 ms in the timeline);
  - env-paths (\`lic serve\`'s default data directory) loads only in \`lic serve\`: its
    first use reads the home and temporary directories, 0.5–0.6 ms of every start before.
  - tried and left: writing output with fs.writeSync before Node's process.stdout exists, and
    not destroying the idle keep-alive socket at the end (whose destroy() reads
    process.stderr, making that stream): Node's net module, which both streams need, is loaded
    for the request anyway, and neither moved the ratio beyond the noise (1.925 → 1.915 and
    1.876, then 1.920 against 1.934); V8's \`--min-semi-space-size\` (a run has two
    scavenges of ~0.3–0.5 ms; the flag is not taken once the heap exists, and given on the
    command line it moved 1.875 to 1.847–1.867); esbuild's minifyWhitespace (690 → 501 KB;
    1.901 → 1.868, then 1.941 → 1.926, within the noise; stack traces would lose their lines).
  - where a \`keys list -o json\` run goes now (that timeline, quiet machine): Node's own
    start to bin/lic.js ~17–18 ms (\`node -e 0\` is ~25 ms of wall time in all); bin/lic.js
    before the bundle ~1 ms (dist/version.json 0.3, Node's compile cache switched on 0.25);
    the bundle ~6 ms (read 0.9, the code cache of ~380 KB deserialised ~2.5, the eager
    modules' top level ~2.5: commander, the runtime, the renderer, the flag parsers); the
    program ~1 ms; then the request as a plain node:http script makes it, ~12 ms (tty and net
    2.1, http 1.4, the first ClientRequest ~3, the round trip to \`lic serve\` 3.5–5, the
    body 0.9), with ~2 ms more of lic's own (the runtime, the client, the renderer). A
    CommonJS script making that GET is ~1.45× \`node -e 0\`; 1.80× leaves lic ~8 ms over it,
    where the bundle alone takes ~6 and the program ~1.

- Issue 30, the single executable (\`BENCH_SEA=1\` adds its rows above; docs/installing.md):
  \`npm run build:sea\` builds dist/lic-sea, Node 26 with a V8 start-up snapshot in which
  dist/cli.cjs is loaded and every noun's modules are initialised (156 MiB: Node 143, the
  snapshot ~10 MB, the vendor files ~4 MB as assets). Two runs of 21 interleaved rounds, wall
  time ÷ \`node -e 0\`: \`--version\` 1.30–1.31 (lic 1.03–1.05), \`--help\` 1.18–1.22 (lic
  0.90–1.04), \`keys list -o json\` 1.84–1.87 (lic 1.86–1.89). CPU time per run (30 runs, twice):
  \`node -e 0\` 22.5–22.8 ms; \`--version\` lic 25.2–25.3, lic-sea 31.0–31.9 (29.4–30.2 without
  the nouns warmed); \`keys list -o json\` lic 47.5–48.4, lic-sea 43.3–44.1 (46.8–47.1 without).
  Where it goes: every start deserialises the whole snapshot, ~2 MB of heap more than Node's
  own (a snapshot of an empty script starts as fast as \`node -e 0\`), ~6 ms of CPU whether the
  command needs the bundle or not; the bundle's read, compile and top level (~4.5 ms for \`keys
  list\`) are saved, but the code a command first runs at run time is compiled from source, where lic
  reads it from its code cache.
  With the vendor files in the snapshot instead of assets it was 17 MB and \`--version\` 1.54× in one run.
  So it does not beat the npm-installed lic and is not built by .ci/run.
- Issue 30, second pass (Node 26). What changed:
  - \`lic --help\`, \`lic\`, \`lic NOUN --help\`, \`lic help NOUN\` and \`lic help TOPIC\` are printed by
    bin/lic.js from dist/help.json without loading dist/cli.cjs: the build runs each of those
    command lines through the bundle's own main() (scripts/prebuilt-help.mjs) and keeps what
    it printed, served in a pipe and on an 80-column terminal (on any other width the bundle
    prints it; test/cli/prebuilt-help.test.ts compares every page with the bundle's). They now
    cost what \`--version\` costs. A verb's help (\`lic keys list --help\`) still builds the program;
  - each noun's module loads on demand (src/cli/program.ts, NOUNS: a dynamic import per noun,
    which esbuild turns into a lazy initialiser): \`lic keys list\` initialises none of the
    other nouns' 57 modules, so their code is neither run nor compiled (the bundle's require
    with the code cache went from ~10 to ~7 ms of CPU over \`node -e 0\`); and
    src/commands/state/apply.ts's \`fs/promises\` constants come from node:fs, so fs/promises
    (with readline and the stream modules it loads) is no longer loaded at every start
    (together ~1.5 ms of CPU for \`keys list\`);
  - bin/lic.js compiles dist/cli.cjs as a vm.Script with a code cache made after a run
    (\`cli-<build>-<noun>-….cache\` in LIC_CACHE_DIR, one per noun). Node's compile cache is
    made when a file is compiled, so for the bundle, nearly all of it functions V8 compiles on
    first call (esbuild's wrappers), it held only the top level and every run compiled again
    what it ran: \`keys list -o json\` 53.7 → 45.5 ms of CPU, \`log list --level Warning
    --since 24h -o json\` 55.3 → 47.0 (\`node -e 0\` 23.0; 31 interleaved runs, load ~6). Node's
    compile cache stays for dist/vendor/ and dist/server.cjs;
  - the stream: the client collects its young generation every 1 MiB of replies instead of 4
    (src/cli/memory.ts; peak RSS of the 1M walk 106–119 MiB instead of 127–139 in paired runs,
    client CPU the same: 1.82–1.99 s against 1.94–2.05 s).
  - the stream: \`lic serve\` reads the next page of a walk by id ahead while the client
    writes this one, and answers the next request with it when the log is unchanged
    (src/server/log/read-ahead.ts): the service no longer sits idle ~1.2 ms a page waiting
    for the request. The 1M walk 264,649 → 380,659 entries/s (medians of 7 interleaved pairs
    of the service before and after, the same client; load 1.4–1.6), the client's peak RSS
    the same (105.8–112.1 against 107.0–112.3 MiB). It fills time the service was idle, so
    with less spare CPU it gains less: 190,520 → 213,964 at load ~3 (6 pairs), nothing at
    load ~5 (237,814 and 224,601; 188,291 and 198,223: 5 pairs each).
  - tried and left: reading the log's version and schema version once per page instead of
    ~10 times (about 0.17 ms a page in a profile): no faster over the 1M walk (366,710 with,
    381,533 without, 6 interleaved pairs).
  - tried and left: \`lic serve\` writing each entry's JSON in SQLite (json_object, the time by
    strftime, \`.pluck()\`): the same bytes as JSON.stringify of the records, and a page of 1000
    built ~0.3 ms faster in a script, but the reply made of SQLite's strings took ~0.35 ms more
    to encode to UTF-8 (0.39 against 0.05 ms a page), and over the 1M walk the service used
    more CPU (2.57–2.81 s against 2.34 s, paired runs). The stream's speed is the service's
    (~2.3 s of CPU for 1M entries, about the 3.3 µs an entry that 300,000/s allows, on a machine
    where the client, the service and other work share 2 cores).
- Where the rest of \`keys list -o json\` goes (Node 26, CPU time of the whole process, which a
  loaded machine stretches less than wall time; 31 interleaved runs): \`node -e 0\` 23.0 ms; a
  CommonJS script making the same GET with node:http 33.1 ms (+10: Node's http, net and stream
  modules, which are not in its start-up snapshot, and the request); lic 45.5 ms, so ~12 ms
  over that script, where 1.80× \`node -e 0\` leaves ~8. Measured before the post-run cache:
  requiring dist/cli.cjs cost ~7 ms over \`node -e 0\` (a bundle of the keys noun alone ~5.5)
  and the first run of main() ~13 ms, of which a second run in the same process needs only
  ~1.6 ms: the rest is code running cold. The post-run cache took ~8 ms of that; what is left
  is deserialising that cache (~380 KB) and running with cold inline caches. What would cut it
  further is a V8 start-up snapshot of the initialised program (a single executable, \`node
  --build-sea\`; not tried: time), or declaring only the invoked verb of a noun.

- Issue 30 (Node 26): the ratios are medians of each round's pair (the row's run ÷ the
  baseline's run in the same round), so a busy moment hits both alike; with BENCH_BEFORE the
  build before the change runs in the same rounds ("before:" rows). What changed:
  - a plain request (http://, no proxy variable, no extra CA) goes through node:http
    (src/client/node-http.ts), whose parser is Node's own C++ llhttp: no dist/vendor/undici.cjs
    (570 KB), no WebAssembly parser to compile, and V8's \`--liftoff-only\` (which only that
    parser needs) is no longer set at start, so node:v8 is not loaded either. Node's global
    \`fetch\` was measured and left: it is the same undici, and a script making one GET with it
    took ~2× the node:http script (its WebAssembly parser is compiled on first use; it is not in
    Node's start-up snapshot). undici stays for proxies, extra CAs and https://;
  - node:v8 and node:vm (imported by src/cli/memory.ts) are lazy built-ins like the others;
  - profile reads were already without conf (src/config/profiles.ts reads the JSON itself).
  - the stream passes records already in the printed shape through as the service's text
    (src/cli/list/page-text.ts) instead of JSON.parse + JSON.stringify, and runs a scavenge every
    1 MiB of replies (4 MiB before the second pass) so socket buffers do not pile up between V8's
    rarer collections.
- Where the rest goes (Node 26, CPU profile of \`keys list -o json\` and Node's module list):
  the script and lic load the same built-ins (net, http, streams); lic adds node:module (the
  compile cache), dist/cli.cjs (deserialised from the code cache, then commander and the keys
  noun's command tree built: \`fieldTypesOf\` of every list noun's schema and commander's
  option parsing are the largest JavaScript items) and its output layer. On this shared machine
  the ratio to \`node -e 0\` moves by ±0.3 between runs; the ratio to the node:http script is
  steadier. The node:http script itself is an ES module (.mjs): on Node 26 its start costs
  ~1.5–1.8× a CommonJS copy of it (measured beside), so ≤ 1.25× that script is easier than
  ≤ 1.80× \`node -e 0\`, which asks lic to start about as fast as a CommonJS one-GET script.

- The machine is shared by several builds and test runs (load average above), which stretches
  bigger processes more than \`node -e 0\`. Read the ratios to the plain node:http script too: it
  makes the same request with nothing of lic, so it is the fairest floor for a list command.
- What a start cost when it was cut (Node 20, code cache warm, timed inside the process with
  \`performance.now()\`, quiet machine): Node's own boot to the first line of bin/lic.js ~23 ms
  (what \`node -e 0\` is); dist/cli.cjs read, deserialised from the code cache and its eager
  modules run (commander, the verbs' modules) ~14 ms, of which the file 1.5 ms, V8's cache 2 ms
  and running the top level 7–9 ms; building the command tree (12 nouns, 42 commands and
  their options) and printing help ~10 ms. So \`--help\` sits ~25 ms above the floor (1.7–1.8×),
  where 1.30× leaves ~10 ms: commander alone, required from node_modules with a tree of this size
  and its help, costs ~23 ms on this machine (a one-file script measured beside). Not met on
  Node 20, 22 or 24; what would meet it is help text that does not run commander at all
  (precomputed per width): done in the second pass above, from the bundle's own output at build
  time rather than a second copy of every help.
- A list command adds to that: undici's Agent, request API and errors (dist/vendor/undici.cjs,
  from the code cache; it loads node:http, net and the WebAssembly llhttp parser, compiled by
  Liftoff), the request itself, and the JSON output: ~40 ms over \`--help\`, against ~25 ms for the
  whole plain node:http script over \`node -e 0\`. Not met on Node 20 (≈ 1.6× the script); on
  Node 22 and 24 lic is within 1.2–1.4× of the script (whose ES module start is slower there).
- How it was cut (from 3.6× to ~1.8× for \`--help\`, 5.3× to ~2.9× for \`keys list\`, Node 20):
  - one CommonJS bundle, not ES modules: no ES module loader (Node 20 reads ES modules through
    fs/promises, which loads streams and readline), and V8's compiled code kept between runs
    (Node's module.enableCompileCache, in LIC_CACHE_DIR; on Node 20 it took a vm.Script cache
    of lic's own). Our own lazy modules are in the same file behind
    esbuild's lazy initialisers, so error classes stay one instance;
  - the bigger third-party packages in their own files (dist/vendor/), required on first use:
    undici for requests, conf for profile writes, TypeBox for \`resources import\`, the DLL
    reader, prompts, progress bars, CSV, color;
  - TypeBox out of the start: \`resources import\`'s check loaded it for every command (the
    bundle went from 725 KB to 338 KB when it was moved behind an import);
  - built-ins loaded on first use (scripts/build.mjs, lazy-builtins): child_process, crypto,
    fs/promises, tty, tls, http2 (its constants copied at build time);
  - process.stdin/stdout/stderr made only when used (on a file, Node's stdin stream loads
    fs/promises); node:v8 (for \`--liftoff-only\`) only for commands that may send a request;
  - \`--liftoff-only\`: without it V8 tiers llhttp up in the background and the process waits for
    those compile jobs at exit (~150 ms per request command, Node 20). Node keeps a compile cache
    per set of V8 flags, so the flag is set before anything compiles.
  - a command line that certainly runs one noun (\`lic keys ...\`, after any root flags) declares
    only that noun's commands (\`keys --help\` ~64 → ~57 ms in one back-to-back run); help,
    typos and anything unsure declare all, and a test checks both give the same output.
- Tried and left: minifying the bundles (whitespace and syntax: 451 → 308 KB) made no
  measurable difference once the code cache is warm; node:http (loaded by undici for
  IncomingMessage and maxHeaderSize) costs ~2 ms over net, which a request needs anyway.
- \`lic --version\` is answered by bin/lic.js from dist/version.json without the bundle: it costs
  what any one-line script costs (1.0–1.2× depending on the run).
- The stream: 1,000 entries per page (the service's maximum take), the next page asked for while
  the current one is written (one request ahead; abandoned without a retry or a notice when the
  reader closes the pipe or on Ctrl-C), records already in the documented shape passed through,
  ndjson stringified 64 records at a time. Client and service each spend ~7 µs of CPU per entry
  (the service: SQL, then JSON with the escaped \`properties\` string; the client: parsing the page
  and writing it), so the stream runs at the speed of one of them only when each has a core of
  its own: on these 2 shared cores it reached ~80,000 entries/s at 1M (from ~65,000), not the
  100,000 of the target. Memory is flat: about 100 MiB at a tenth and at the whole log.
- \`lic serve\` cold start: dist/server.cjs from the code cache (the service, fastify, ajv and
  the query compiler in one file), then the database opened: ~280 ms to the first answer on 1M
  entries (435 ms before the CommonJS bundle).`;

const lines = [
  '# Benchmarks: start-up',
  '',
  `Generated by \`npm run bench:startup\` (bench/startup.mjs${BEFORE ? `, BENCH_BEFORE: ${process.env.BENCH_BEFORE_LABEL ?? 'another build'}` : ''}) on ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
  `Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), ${os.platform()} ${os.release()}; Node ${process.version}. ` +
    `Load average ${loadBefore.map((x) => x.toFixed(1)).join(' / ')} at the start and ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' / ')} at the end: the machine is shared with other work, so absolute times wander; ` +
    'each row is compared with `node -e 0` (and the list rows with the plain node:http script) timed in the same run.',
  '',
  `## Short commands on Node ${process.version} (Node's compile cache; ${RUNS} runs each, wall time of the whole process, ${useHyperfine ? 'hyperfine `-N`, 3 warm-up runs' : 'Node harness, interleaved rounds, 3 warm-up rounds'})`,
  '',
  'Against `lic serve --seed demo` on 127.0.0.1; LIC_BASE_URL and LIC_API_KEY from the environment (no profile store read) unless the row says otherwise.' +
    (useHyperfine
      ? " hyperfine sets each command's environment with `env`, an extra exec that every row pays alike, the floor included."
      : ''),
  '',
  ...shortTable(times),
  '',
  ...otherTimes.flatMap((o) => [`### The same on Node ${o.version} (Node's compile cache)`, '', ...shortTable(o.times), '']),
  `## The log stream: \`lic log list --all -o ndjson > /dev/null\` over ${int(total)} entries`,
  '',
  `Peak RSS ${gnuTime ? 'from GNU `/usr/bin/time -v`' : 'sampled from /proc/PID/status VmHWM'}. Target: ≥ 300,000 entries/s at 1M; peak RSS ≤ 120 MB at a tenth and at the whole log (a tenth's speed, which the fixed start weighs on ten times as much, is shown, not judged).`,
  '',
  '| entries | time | entries/s | peak RSS | |',
  '| ---: | ---: | ---: | ---: | --- |',
  ...[[tenth, small], [total, whole], ...(wholeBefore ? [[total, wholeBefore, 'before (BENCH_BEFORE): ']] : [])].map(
    ([n, r, what = '']) =>
      `| ${what}${int(n)} | ${r.s.toFixed(2)} s | ${int(n / r.s)} | ${r.rss.toFixed(0)} MiB | ${what ? '' : verdict((n < total || n / r.s >= 300_000) && r.rss * 1.048576 <= 120)} |`,
  ),
  '',
  `## \`lic serve\` cold start on the ${int(total)}-entry database, to its first answered request`,
  '',
  `From spawning \`lic serve --db FILE --port 0\` to the end of the reply to \`GET /v1/log?take=1\` (5 starts): median ${ms(median(cold))}, slowest ${ms(Math.max(...cold))}. Target ≤ 500 ms: ${verdict(median(cold) <= 500)}.`,
  '',
];
const floor0 = median(times[0]);
lines.push(
  '## Import budget',
  '',
  `Median of \`require(...)\` in a fresh process (Node ${process.version}, without the code cache that bin/lic.js adds), after what loads before it. The budget is a multiple of this run's \`node -e 0\` (${ms(floor0)}), derived from the targets: \`--help\` ≤ 1.30× leaves 0.3× for the bundle, a list command ≤ 2.0× leaves 0.25× for the HTTP client. Every command pays one of the first two rows (a noun's own bundle when the command line names the noun); the rest are files required by the commands named.`,
  '',
  '| part | import | × `node -e 0` | loaded by | budget | |',
  '| --- | ---: | ---: | --- | ---: | --- |',
  ...budget.map(
    ([what, cost, by, max]) =>
      `| ${what} | ${cost.toFixed(1)} ms | ${(cost / floor0).toFixed(2)} | ${by} | ${max === null ? '–' : `${max}×`} | ${max === null ? '' : verdict(cost / floor0 <= max)} |`,
  ),
  '',
  NOTES,
  '',
);
writeFileSync(join(ROOT, 'bench/startup.md'), lines.join('\n'));
process.stdout.write(lines.join('\n'));
say('wrote bench/startup.md');
process.exit(0);
