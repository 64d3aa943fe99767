// Peak memory of the commands that carry resource data, at 1 GB of it: `npm run bench:import`.
// Builds a bundle of BENCH_IMPORT_MIB MiB of resource data (default 1024: resources of 5 MiB
// of random bytes each, the last one the remainder, distinct codes and names) in a temporary
// directory, starts two `lic serve --port 0 --no-profile --db FILE --keys-file FILE` (A and
// B), then spawns bin/lic.js as a user runs it (LIC_BASE_URL + LIC_API_KEY, HOME and every
// lic directory temporary, so no real profile is read or touched), each with a preload that
// prints process.resourceUsage().maxRSS (the kernel's peak resident set) on exit:
//   a. `resources import BUNDLE` into A (all created)
//   b. the same again (all unchanged: each resource's bytes compared)
//   c. `resources import - < BUNDLE --dry-run` against A (stdin spooled to a temp file; unchanged)
//   d. `state export --nouns resources --data-dir data > state.yaml` from A
//   e. `apply -f state.yaml` to B (all created)
//   f. `diff -f state.yaml --exit-code` against B (exit 0: every resource's bytes compared)
// and `keys list -o json` for the CLI's own footprint. Wall time and peak RSS of each go to
// bench/import.md with the date, Node version, CPUs and load averages. The outcomes are
// checked (counts, exit codes); nothing here asserts a time or a size: the target
// (≤ 150 MB peak RSS) is printed beside each row.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnServe } from './serve-child.mjs';

const MIB = Number(process.env.BENCH_IMPORT_MIB ?? 1024);
if (!Number.isInteger(MIB) || MIB < 1) {
  console.error('BENCH_IMPORT_MIB must be a whole number of MiB, at least 1');
  process.exit(2);
}
const EACH = 5; // MiB of data per resource
const TARGET_MB = 150; // peak RSS, in MB (10^6 bytes)
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/lic.js');
const NODE = process.execPath;
const dir = mkdtempSync(join(os.tmpdir(), 'lic-bench-import-'));
const say = (s) => process.stderr.write(`bench: ${s}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));
const loadBefore = os.loadavg();
const started = new Date();

// everything lic could read or write lives in `dir`: HOME, profiles, code cache, the stdin spool
const env = {
  PATH: process.env.PATH,
  HOME: dir,
  TMPDIR: dir,
  LIC_CONFIG_DIR: join(dir, 'config'),
  LIC_DATA_DIR: join(dir, 'data'),
  LIC_CACHE_DIR: join(dir, 'cache'),
  NO_COLOR: '1',
};
const preload = join(dir, 'maxrss.mjs');
writeFileSync(preload, "process.on('exit', () => process.stderr.write(`\\nmaxrss_kib=${process.resourceUsage().maxRSS}\\n`));\n");

// 1. the bundle: one JSON line per resource, as `resources export` writes it
const bundle = join(dir, 'bundle.ndjson');
const count = Math.ceil(MIB / EACH);
say(`writing a bundle of ${MIB} MiB of random data (${count} resources) to ${bundle}`);
{
  const out = createWriteStream(bundle);
  for (let i = 0; i < count; i++) {
    const mib = Math.min(EACH, MIB - i * EACH);
    const line = JSON.stringify({
      name: `Bench resource ${i}`,
      type: 'binary',
      code: `bench-${String(i).padStart(4, '0')}`,
      description: `${mib} MiB of random bytes`,
      source: 'bench/import.mjs',
      dataFormat: 'bin',
      data: randomBytes(mib * 1024 * 1024).toString('base64'),
    });
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}
const bundleMiB = statSync(bundle).size / 2 ** 20;

/** Starts `lic serve` on a database file (./serve-child.mjs); resolves with its URL and Administrator key. */
async function serve(name) {
  const keysFile = join(dir, `keys-${name}.json`);
  const svc = await spawnServe(children, {
    node: NODE,
    bin: BIN,
    args: ['--no-profile', '--db', join(dir, `${name}.db`), '--keys-file', keysFile],
    env,
  });
  for (let i = 0; !existsSync(keysFile) || statSync(keysFile).size === 0; i++) {
    if (i > 400) throw new Error(`no keys file from lic serve: ${svc.stderr()}`);
    await sleep(25);
  }
  const key = JSON.parse(readFileSync(keysFile, 'utf8')).keys.find((k) => k.role === 'Administrator').key;
  return { url: svc.url, key, stop: svc.stop };
}

/**
 * Runs `lic ARGS` against `svc` with the maxRSS preload, stdin from `stdinFile`, stdout to
 * `stdoutFile` (else collected); resolves with wall seconds, peak RSS (MiB), exit code, stdout.
 */
async function lic(svc, args, { stdinFile, stdoutFile } = {}) {
  const stdio = [stdinFile ? openSync(stdinFile, 'r') : 'ignore', stdoutFile ? openSync(stdoutFile, 'w') : 'pipe', 'pipe'];
  const t0 = performance.now();
  const child = spawn(NODE, ['--import', pathToFileURL(preload).href, BIN, ...args], {
    cwd: dir,
    env: { ...env, LIC_BASE_URL: svc.url, LIC_API_KEY: svc.key },
    stdio,
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = await once(child, 'close');
  const s = (performance.now() - t0) / 1000;
  children.delete(child);
  const kib = Number(/maxrss_kib=(\d+)/.exec(stderr)?.[1]);
  if (!kib) throw new Error(`lic ${args.join(' ')}: no maxrss line (exit ${code}): ${stderr.slice(0, 500)}`);
  return { s, rss: kib / 1024, code, stdout, stderr };
}

/** Fails the bench (not a timing: the outcome) when `ok` is false. */
function check(ok, what, r) {
  if (!ok) throw new Error(`${what}: unexpected outcome (exit ${r.code}): ${r.stdout.slice(0, 300)} ${r.stderr.slice(0, 500)}`);
}

say('starting services A and B');
const [A, B] = await Promise.all([serve('a'), serve('b')]);

const rows = [];
const row = (step, dataMiB, r) => {
  rows.push({ step, dataMiB, ...r });
  say(`${step}: ${r.s.toFixed(1)} s, peak RSS ${r.rss.toFixed(0)} MiB`);
};
const importCounts = (r) => {
  const j = JSON.parse(r.stdout);
  return `${j.created} created, ${j.updated} updated, ${j.unchanged} unchanged, ${j.failed} failed`;
};

let r = await lic(A, ['keys', 'list', '-o', 'json']);
check(r.code === 0, 'keys list', r);
row('baseline: `lic keys list -o json` (the CLI alone)', undefined, r);

r = await lic(A, ['resources', 'import', bundle, '-o', 'json']);
check(r.code === 0 && JSON.parse(r.stdout).created === count, 'import (create)', r);
row(`a. \`resources import BUNDLE\` into A: ${importCounts(r)}`, MIB, r);

r = await lic(A, ['resources', 'import', bundle, '-o', 'json']);
check(r.code === 0 && JSON.parse(r.stdout).unchanged === count, 'import (unchanged)', r);
row(`b. the same again: ${importCounts(r)} (bytes compared)`, MIB, r);

r = await lic(A, ['resources', 'import', '-', '--dry-run', '-o', 'json'], { stdinFile: bundle });
check(r.code === 0 && JSON.parse(r.stdout).unchanged === count, 'import - --dry-run', r);
row(`c. \`resources import - < BUNDLE --dry-run\` against A (stdin spooled): ${importCounts(r)}`, MIB, r);

const stateFile = join(dir, 'state.yaml');
r = await lic(A, ['state', 'export', '--nouns', 'resources', '--data-dir', 'data-files'], { stdoutFile: stateFile });
const dataFiles = readdirSync(join(dir, 'data-files'));
check(r.code === 0 && dataFiles.length === count, 'state export', r);
row(`d. \`state export --nouns resources --data-dir DIR > state.yaml\` from A: ${dataFiles.length} data files`, MIB, r);
const stateKiB = statSync(stateFile).size / 1024;

r = await lic(B, ['apply', '-f', stateFile]);
check(r.code === 0, 'apply', r);
row(`e. \`apply -f state.yaml\` to B: ${/Applied[^\n]*|Plan[^\n]*|[^\n]*created[^\n]*/.exec(r.stderr)?.[0]?.trim() ?? 'exit 0'}`, MIB, r);

r = await lic(B, ['diff', '-f', stateFile, '--exit-code']);
check(r.code === 0, 'diff --exit-code', r);
row(`f. \`diff -f state.yaml --exit-code\` against B: exit ${r.code} (bytes compared)`, MIB, r);

await Promise.all([A.stop(), B.stop()]);
const loadAfter = os.loadavg();
const mb = (mib) => mib * 1.048576;
const lines = [
  '# Benchmarks: memory at 1 GB of resource data',
  '',
  `Generated by \`npm run bench:import\` (bench/import.mjs) on ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
  `Machine: ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim()}), ${os.platform()} ${os.release()}; Node ${process.version}. Load average ${loadBefore.map((l) => l.toFixed(1)).join(' / ')} at the start and ${loadAfter.map((l) => l.toFixed(1)).join(' / ')} at the end: the machine is shared, so wall times wander; the peak RSS does not depend on the load.`,
  '',
  `${count} resources of up to ${EACH} MiB of random bytes each, ${MIB} MiB of data in all: the bundle is ${bundleMiB.toFixed(0)} MiB on disk (base64 in JSON lines); \`state export --data-dir\` wrote ${dataFiles.length} data files and a state file of ${stateKiB.toFixed(0)} KiB. Two \`lic serve\` (A, B) on SQLite files in a temporary directory, on 127.0.0.1, sharing the CPUs with the CLI. The CLI is spawned (\`node --import maxrss.mjs bin/lic.js …\`, LIC_BASE_URL/LIC_API_KEY); peak RSS is \`process.resourceUsage().maxRSS\` at exit; wall time from spawn to exit.`,
  '',
  `| step | data MiB | wall s | MiB/s | peak RSS MiB | target (≤ ${TARGET_MB} MB) |`,
  '| --- | ---: | ---: | ---: | ---: | --- |',
  ...rows.map(
    (x) =>
      `| ${x.step} | ${x.dataMiB ?? '–'} | ${x.s.toFixed(1)} | ${x.dataMiB ? (x.dataMiB / x.s).toFixed(1) : '–'} | ${x.rss.toFixed(0)} | ${x.dataMiB ? `${mb(x.rss) <= TARGET_MB ? 'met' : 'missed'} (${mb(x.rss).toFixed(0)} MB)` : '–'} |`,
  ),
  '',
];
writeFileSync(join(ROOT, 'bench/import.md'), lines.join('\n'));
process.stdout.write(lines.join('\n'));
