// What reading the API key from the keyring adds to `lic keys list -o json`:
// `npm run bench:keyring`. Starts its own D-Bus session bus with GNOME Keyring unlocked in
// a temporary HOME (as test/helpers/secret-service.ts; Debian packages dbus, gnome-keyring:
// .ci/keyring.sh installs them), `lic serve --port 0`, and three profile stores: the key in
// the keyring, in the file, and none (LIC_API_KEY). The commands run in interleaved rounds,
// each row beside `node -e 0` in the same run (the machine is shared and noisy: read the
// differences and ratios). Figures go to bench/keyring.md; nothing here asserts a time.
// BENCH_RUNS (default 21): runs per row.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/lic.js');
const NODE = process.execPath;
const dir = mkdtempSync(join(os.tmpdir(), 'lic-bench-keyring-'));
const say = (s) => process.stderr.write(`bench: ${s}\n`);
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});
const loadBefore = os.loadavg();
const started = new Date();

for (const p of ['dbus-run-session', 'gnome-keyring-daemon']) {
  if (spawnSync('sh', ['-c', `command -v ${p}`]).status !== 0) {
    say(`${p} is not installed (apt-get install dbus gnome-keyring, or run .ci/keyring.sh once)`);
    process.exit(1);
  }
}

// 1. a session bus with GNOME Keyring's login keyring unlocked; lasts until our stdin to it closes
mkdirSync(join(dir, '.cache'));
const busEnv = { PATH: process.env.PATH, HOME: dir, XDG_RUNTIME_DIR: dir, XDG_DATA_HOME: join(dir, 'data') };
const session = spawn(
  'dbus-run-session',
  [
    '--',
    'sh',
    '-c',
    'printf %s bench | gnome-keyring-daemon --unlock --components=secrets >/dev/null; echo "BUS=$DBUS_SESSION_BUS_ADDRESS"; cat >/dev/null',
  ],
  { env: busEnv, stdio: ['pipe', 'pipe', 'ignore'] },
);
children.add(session);
const bus = await new Promise((resolve) =>
  createInterface({ input: session.stdout }).on('line', (l) => l.startsWith('BUS=') && resolve(l.slice(4))),
);

// 2. the service, and three stores
const env = { PATH: process.env.PATH, HOME: dir, LIC_CACHE_DIR: join(dir, 'cache'), NO_COLOR: '1', DBUS_SESSION_BUS_ADDRESS: bus };
const keysFile = join(dir, 'keys.json');
const serve = spawn(NODE, [BIN, 'serve', '--port', '0', '--no-profile', '--db', join(dir, 'lic.db'), '--keys-file', keysFile], {
  env,
  stdio: ['ignore', 'pipe', 'ignore'],
});
children.add(serve);
const url = await new Promise((resolve) => createInterface({ input: serve.stdout }).once('line', resolve));
const key = JSON.parse(readFileSync(keysFile, 'utf8')).keys.find((k) => k.role === 'Administrator').key;
const lic = (args, extra, input) =>
  execFileSync(NODE, [BIN, ...args], { env: { ...env, ...extra }, input, stdio: ['pipe', 'pipe', 'pipe'], encoding: 'utf8' });
const stores = { keyring: join(dir, 'keyring'), file: join(dir, 'file'), env: join(dir, 'env') };
lic(['profile', 'add', 'p', '--base-url', url, '--api-key-stdin'], { LIC_CONFIG_DIR: stores.keyring }, key);
lic(['profile', 'add', 'p', '--base-url', url, '--api-key-stdin', '--insecure-storage'], { LIC_CONFIG_DIR: stores.file }, key);
if (!readFileSync(join(stores.keyring, 'profiles.json'), 'utf8').includes('"keyStore": "keyring"'))
  throw new Error('the key did not go to the keyring');
mkdirSync(stores.env);

const rows = [
  { name: '`node -e 0` (the floor)', argv: ['-e', '0'], extra: {} },
  {
    name: '`lic keys list -o json`, LIC_BASE_URL + LIC_API_KEY (no store read)',
    argv: [BIN, 'keys', 'list', '-o', 'json'],
    extra: { LIC_CONFIG_DIR: stores.env, LIC_BASE_URL: url, LIC_API_KEY: key },
  },
  {
    name: '`lic keys list -o json`, profile with the key in the file',
    argv: [BIN, 'keys', 'list', '-o', 'json'],
    extra: { LIC_CONFIG_DIR: stores.file },
  },
  {
    name: '`lic keys list -o json`, profile with the key in the keyring',
    argv: [BIN, 'keys', 'list', '-o', 'json'],
    extra: { LIC_CONFIG_DIR: stores.keyring },
  },
];

/** Wall time of one run in ms (spawnSync: the whole process, start to exit). */
function once(row) {
  const t = process.hrtime.bigint();
  const r = spawnSync(NODE, row.argv, { env: { ...env, ...row.extra }, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`${row.name}: exit ${r.status}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];

say(`warming up (code cache), then ${RUNS} interleaved rounds`);
for (let i = 0; i < 3; i++) for (const row of rows) once(row);
const times = rows.map(() => []);
for (let i = 0; i < RUNS; i++) rows.forEach((row, j) => times[j].push(once(row)));

// 3. the binding alone, in one process: load, first read (connects to the bus), a second read
const probe = `
const t0 = performance.now();
const { AsyncEntry } = require('@napi-rs/keyring');
const t1 = performance.now();
const opts = { linux: { store: 'secret-service' } };
(async () => {
  await new AsyncEntry('lic', ${JSON.stringify(`p@${stores.keyring}`)}, opts).getPassword();
  const t2 = performance.now();
  await new AsyncEntry('lic', ${JSON.stringify(`p@${stores.keyring}`)}, opts).getPassword();
  const t3 = performance.now();
  console.log(JSON.stringify({ load: t1 - t0, first: t2 - t1, second: t3 - t2 }));
})();`;
const parts = [];
for (let i = 0; i < RUNS; i++) parts.push(JSON.parse(execFileSync(NODE, ['-e', probe], { cwd: ROOT, env, encoding: 'utf8' })));

serve.kill('SIGTERM');
session.stdin.end();
const loadAfter = os.loadavg();
const ms = (x) => `${x.toFixed(0)} ms`;
const ms1 = (x) => `${x.toFixed(1)} ms`;
const floor = median(times[0]);
const byFile = median(times[2]);
const lines = [
  '# Benchmarks: the keyring read',
  '',
  `Generated by \`npm run bench:keyring\` (bench/keyring.mjs) on ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
  `Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), ${os.platform()} ${os.release()}; Node ${process.version}. Load average ${loadBefore.map((l) => l.toFixed(1)).join(' / ')} at the start and ${loadAfter.map((l) => l.toFixed(1)).join(' / ')} at the end: the machine is shared, so absolute times wander; compare the rows of this run with each other.`,
  '',
  `GNOME Keyring (unlocked login keyring) on a private D-Bus session bus; \`lic serve\` on 127.0.0.1. ${RUNS} runs per row, interleaved round by round after 3 warm-up rounds; wall time of the whole process.`,
  '',
  '| command | median | p90 | ÷ `node -e 0` | − the file row |',
  '| --- | ---: | ---: | ---: | ---: |',
  ...rows.map((row, j) => {
    const m = median(times[j]);
    return `| ${row.name} | ${ms(m)} | ${ms(p90(times[j]))} | ${j ? (m / floor).toFixed(2) : '–'} | ${j > 2 ? `${m - byFile >= 0 ? '+' : ''}${ms(m - byFile)} (${(m / byFile).toFixed(2)}×)` : '–'} |`;
  }),
  '',
  `The binding alone, in one process (${RUNS} runs, medians): loading @napi-rs/keyring ${ms1(median(parts.map((p) => p.load)))}; the first read (connecting to the session bus, opening the Secret Service session) ${ms1(median(parts.map((p) => p.first)))}; a second read ${ms1(median(parts.map((p) => p.second)))}.`,
  '',
];
writeFileSync(join(ROOT, 'bench/keyring.md'), lines.join('\n'));
process.stdout.write(lines.join('\n'));
