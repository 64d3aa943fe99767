#!/usr/bin/env node
// `lic log stats` wall time against `lic serve --seed demo` (3,000 entries over 30 days):
// `node bench/log-stats.mjs` after `npm run build`. Each shape is run BENCH_RUNS times
// (default 5) through the built CLI, piped (-o csv, so no chart and no progress bar);
// writes the median and the requests per second to bench/log-stats.md.
// Figures only: nothing here asserts a time (speed is measured here, never in tests).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LIC = join(ROOT, 'bin/lic.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const tmp = mkdtempSync(join(os.tmpdir(), 'lic-bench-stats-'));
const keysFile = join(tmp, 'keys.txt');

const serve = spawn(
  process.execPath,
  [LIC, 'serve', '--seed', 'demo', '--db', join(tmp, 'db.sqlite'), '--port', '0', '--no-profile', '--keys-file', keysFile],
  { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, XDG_CONFIG_HOME: tmp, XDG_DATA_HOME: tmp } },
);
const stop = () => {
  serve.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
};
// the keys file (JSON: baseUrl and the keys made) appears once the service listens
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let started;
for (let i = 0; i < 300 && !started; i++) {
  try {
    started = JSON.parse(readFileSync(keysFile, 'utf8'));
  } catch {
    await sleep(100);
  }
}
if (!started) {
  stop();
  throw new Error('lic serve did not start within 30 s');
}
const url = started.baseUrl;
const adminKey = started.keys.find((k) => k.role === 'Administrator').key;

const shapes = [
  { name: '30 days by day, 6 levels', args: [], requests: 31 * 6 },
  { name: '30 days by week, 6 levels', args: ['--by', 'week'], requests: 6 * 6 },
  { name: '60 hours by hour, 6 levels', args: ['--since', '60h', '--by', 'hour'], requests: 61 * 6 },
  {
    name: '30 days by day, Warning+Error, --where',
    args: ['--level', 'Warning,Error', '--where', 'Message.Contains("key")'],
    requests: 31 * 2,
  },
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const s of shapes) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [LIC, 'log', 'stats', ...s.args, '-o', 'csv'], {
      env: { PATH: process.env.PATH, HOME: tmp, LIC_BASE_URL: url, LIC_API_KEY: adminKey },
      encoding: 'utf8',
    });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) {
      stop();
      throw new Error(`lic log stats ${s.args.join(' ')}: exit ${r.status}: ${r.stderr}`);
    }
    times.push(ms);
  }
  const m = median(times);
  rows.push(`| ${s.name} | ${s.requests} | ${m.toFixed(0)} | ${Math.round(s.requests / (m / 1000))} |`);
  console.error(`${s.name}: median ${m.toFixed(0)} ms`);
}
stop();

const text = `# \`lic log stats\` against \`lic serve --seed demo\`

Written by \`node bench/log-stats.mjs\` on ${new Date().toISOString().slice(0, 10)} (Node ${process.version}, ${os.cpus().length} CPUs,
${os.cpus()[0]?.model ?? 'unknown CPU'}); median of ${RUNS} runs of the built CLI, piped (\`-o csv\`), process start included.
Six requests in flight; each is a \`take=0\` \`GET /v1/log\` whose total is one count.

| shape | requests | median ms | requests/s |
|---|---|---|---|
${rows.join('\n')}
`;
writeFileSync(join(ROOT, 'bench/log-stats.md'), text);
console.error(text);
