#!/usr/bin/env node
// Benchmark of `lic resources export` | `lic resources import` between two services:
// `npm run build --silent && node bench/sync.mjs`. BENCH_RESOURCES (default 500) resources of
// BENCH_KIB KiB each (default 64) are created in a first `lic serve`; then, spawned as a user
// runs them: the export to a file, the import into an empty second `lic serve` (all created),
// the same import again (all unchanged: lookups only), and with one byte changed (one update).
// Wall time, requests sent and peak RSS of each. Writes bench/sync.md. Figures only: nothing
// here asserts a time (speed is measured here, never in tests).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LIC = join(ROOT, 'bin/lic.js');
const N = Number(process.env.BENCH_RESOURCES ?? 500);
const KIB = Number(process.env.BENCH_KIB ?? 64);
if (!Number.isInteger(N) || N < 1 || !Number.isInteger(KIB) || KIB < 1 || KIB > 7 * 1024) {
  console.error('BENCH_RESOURCES must be an integer >= 1 and BENCH_KIB 1..7168');
  process.exit(2);
}
const LOAD_START = os
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
const tmp = mkdtempSync(join(os.tmpdir(), 'lic-bench-sync-'));
const say = (s) => process.stderr.write(`bench: ${s}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const processes = new Set();
process.on('exit', () => {
  for (const p of processes) p.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));
const gnuTime =
  existsSync('/usr/bin/time') &&
  spawnSync('/usr/bin/time', ['-v', 'true'], { encoding: 'utf8' }).stderr.includes('Maximum resident set size');

/** Starts `lic serve` over :memory: (port 0) with --log-requests; resolves with URL, Administrator key, request count and stop(). */
async function startServe(name) {
  const keysFile = join(tmp, `keys-${name}.json`);
  const env = { ...process.env, LIC_CONFIG_DIR: join(tmp, 'config'), LIC_DATA_DIR: join(tmp, 'data'), NO_COLOR: '1' };
  const child = spawn(
    process.execPath,
    [LIC, 'serve', '--db', ':memory:', '--port', '0', '--no-profile', '--keys-file', keysFile, '--log-requests'],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  processes.add(child);
  let stderr = '';
  const seen = [];
  child.stderr.on('data', (d) => {
    stderr += d;
    for (const m of String(d).matchAll(/"method":"(GET|POST|PUT|DELETE)","url":"\/v1\/resources/g)) seen.push(m[1]);
  });
  const url = await new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      if (buf.includes('\n')) resolve(buf.split('\n')[0].trim());
    });
    child.on('exit', (code) => reject(new Error(`lic serve exited ${code}: ${stderr}`)));
  });
  for (let i = 0; !existsSync(keysFile) || statSync(keysFile).size === 0; i++) {
    if (i > 200) throw new Error(`no keys file from lic serve: ${stderr}`);
    await sleep(25);
  }
  await sleep(50);
  const key = JSON.parse(readFileSync(keysFile, 'utf8')).keys.find((k) => k.role === 'Administrator').key;
  return { url, key, seen, stop: () => child.kill('SIGTERM') };
}

/** Runs `lic ARGS` against `svc` (stdin from a file, stdout to a file); wall ms, peak RSS (GNU time -v, else VmHWM sampled), exit code. */
async function lic(svc, args, { stdinFile, stdoutFile } = {}) {
  const env = { ...process.env, LIC_BASE_URL: svc.url, LIC_API_KEY: svc.key, LIC_CONFIG_DIR: join(tmp, 'cli-config'), NO_COLOR: '1' };
  const timeFile = join(tmp, `time-${Date.now()}.txt`);
  const argv = gnuTime ? ['/usr/bin/time', '-v', '-o', timeFile, process.execPath, LIC, ...args] : [process.execPath, LIC, ...args];
  const { openSync } = await import('node:fs');
  const stdio = [stdinFile ? openSync(stdinFile, 'r') : 'ignore', stdoutFile ? openSync(stdoutFile, 'w') : 'pipe', 'pipe'];
  const before = svc.seen.length;
  const t0 = performance.now();
  const child = spawn(argv[0], argv.slice(1), { env, stdio });
  processes.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
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
  await sleep(100); // the service's request log lines of the last requests
  if (code !== 0) throw new Error(`lic ${args.join(' ')} exited ${code}: ${stderr.slice(0, 500)}`);
  if (gnuTime) hwm = Number(readFileSync(timeFile, 'utf8').match(/Maximum resident set size \(kbytes\): (\d+)/)?.[1]);
  const sent = svc.seen.slice(before);
  const count = (m) => sent.filter((s) => s === m).length;
  return { ms, rssMiB: hwm / 1024, stdout, requests: `${count('GET')} GET, ${count('POST')} POST, ${count('PUT')} PUT` };
}

say(`starting two services; ${N} resources of ${KIB} KiB`);
const [src, dst] = await Promise.all([startServe('src'), startServe('dst')]);
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  const data = Buffer.alloc(KIB * 1024, i % 251).toString('base64');
  const res = await request(`${src.url}/v1/resources`, {
    method: 'POST',
    headers: { 'x-api-key': src.key, 'content-type': 'application/json' },
    body: JSON.stringify({ resource: { name: `bench ${i}`, type: 'email', code: `bench-${i}`, dataFormat: 'html', data } }),
  });
  if (res.statusCode !== 200) throw new Error(`POST ${i}: ${res.statusCode} ${await res.body.text()}`);
  await res.body.dump();
}
say(`created ${N} in the source in ${Math.round(performance.now() - t0)} ms`);

const bundle = join(tmp, 'bundle.ndjson');
const rows = [];
const row = (what, r, extra = '') => {
  rows.push(
    `| ${what} | ${Math.round(r.ms).toLocaleString('en-US')} ms | ${(r.ms / N).toFixed(1)} ms | ${r.requests} | ${r.rssMiB.toFixed(0)} MiB | ${extra} |`,
  );
  say(`${what}: ${Math.round(r.ms)} ms, ${r.requests}, ${r.rssMiB.toFixed(0)} MiB`);
};
const summary = (r) => {
  const j = JSON.parse(r.stdout);
  return `created ${j.created}, updated ${j.updated}, unchanged ${j.unchanged}, failed ${j.failed}`;
};
const exp = await lic(src, ['resources', 'export'], { stdoutFile: bundle });
row('`resources export > bundle.ndjson`', exp, `${(statSync(bundle).size / 1024 / 1024).toFixed(1)} MiB bundle`);
const first = await lic(dst, ['resources', 'import', bundle, '-o', 'json']);
row('`resources import bundle.ndjson` (empty service)', first, summary(first));
const again = await lic(dst, ['resources', 'import', bundle, '-o', 'json']);
row('the same import again', again, summary(again));
const lines = readFileSync(bundle, 'utf8').trimEnd().split('\n');
const one = JSON.parse(lines[Math.floor(N / 2)]);
const bytes = Buffer.from(one.data, 'base64');
bytes[0] ^= 1;
one.data = bytes.toString('base64');
lines[Math.floor(N / 2)] = JSON.stringify(one);
const changed = join(tmp, 'changed.ndjson');
writeFileSync(changed, lines.join('\n') + '\n');
const upd = await lic(dst, ['resources', 'import', changed, '-o', 'json']);
row('one byte changed', upd, summary(upd));
const dry = await lic(dst, ['resources', 'import', bundle, '--dry-run', '-o', 'json']);
row('`--dry-run` of the original bundle', dry, summary(dry));
src.stop();
dst.stop();

const out = [
  '# Benchmark: copying resources between services',
  '',
  `Generated by \`node bench/sync.mjs\` on ${new Date().toISOString().slice(0, 10)}. Figures, not asserts: rerun to compare.`,
  '',
  `Machine: ${os.availableParallelism()} CPUs, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM; Node ${process.version}. Load average at the end: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}.`,
  '',
  `${N} resources of ${KIB} KiB each in a \`lic serve --db :memory:\`, copied to a second, empty one; both services and the CLI on 127.0.0.1, sharing the CPUs. The CLI is spawned (\`bin/lic.js\`, LIC_BASE_URL/LIC_API_KEY) as a user runs it; requests counted from the service's \`--log-requests\`. Peak RSS ${gnuTime ? 'from GNU `/usr/bin/time -v`' : 'sampled from /proc/<pid>/status VmHWM every 20 ms'}.`,
  '',
  '| run | wall | per resource | requests to /v1/resources | peak RSS | outcome |',
  '| --- | ---: | ---: | --- | ---: | --- |',
  ...rows,
  '',
  `Load average at the start: ${LOAD_START}; the machine is shared, so compare runs of one session only.`,
  '',
  'Export reads the ids a page of 200 at a time without the data, then each resource whole by id (one resource in memory); import reads and checks the whole bundle first, then one lookup per resource and a write only where something differs.',
  '',
];
writeFileSync(join(ROOT, 'bench/sync.md'), out.join('\n'));
say('wrote bench/sync.md');
process.exit(0);
