#!/usr/bin/env node
// `lic log top` and `lic log report` over a large log: `node bench/log-top.mjs` after
// `npm run build`. Builds (or reuses, BENCH_DB_DIR) the log of bench/log-seed.mjs with
// BENCH_ROWS entries (default 1,000,000) over 30 days, starts `lic serve` on it, and runs
// each shape once through the built CLI, piped: wall time, entries/s, and the CLI's peak
// RSS (VmHWM, reported at exit by a --require'd script). Target: RSS ≤ 150 MB.
// Writes bench/log-top.md. Figures only: nothing here asserts a time.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { END, START, pristineLog } from './log-seed.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LIC = join(ROOT, 'bin/lic.js');
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const tmp = mkdtempSync(join(os.tmpdir(), 'lic-bench-top-'));
const DB_DIR = process.env.BENCH_DB_DIR ?? join(tmp, 'pristine');
mkdirSync(DB_DIR, { recursive: true });
const server = await import(join(ROOT, 'dist/server.cjs'));
const built = pristineLog(server, DB_DIR, ROWS);
console.error(`log of ${ROWS} entries ${built.reused ? 'reused' : `built in ${(built.stamp.insertMs / 1000).toFixed(1)} s`}`);

// an Administrator key of its own (a kept log's keys were shown once, to the run that made it)
const adminKey = server.generateApiKey();
{
  const db = server.openDatabase(built.file);
  db.prepare("INSERT OR IGNORE INTO users (id, name, role, created_at) VALUES ('bench', 'bench', 'Administrator', ?)").run(Date.now());
  db.prepare('INSERT INTO api_keys (name, owner_id, permissions, created_at, key_prefix, key_hash) VALUES (?, ?, 7, ?, ?, ?)').run(
    `bench-${Date.now()}`,
    'bench',
    Date.now(),
    adminKey.slice(0, 8),
    server.hashApiKey(adminKey),
  );
  db.close();
}
const serve = spawn(process.execPath, [LIC, 'serve', '--db', built.file, '--port', '0', '--no-profile'], {
  stdio: ['ignore', 'pipe', 'pipe'],
  env: { ...process.env, XDG_CONFIG_HOME: tmp, XDG_DATA_HOME: tmp },
});
const stop = () => {
  serve.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
};
// its URL is the line it prints on stdout once it listens
const baseUrl = await new Promise((resolve, reject) => {
  let out = '';
  const timer = setTimeout(() => reject(new Error(`lic serve did not start within 60 s: ${out}`)), 60_000);
  const onData = (d) => {
    out += d;
    const m = /^(http:\/\/\S+)$/m.exec(out);
    if (m) {
      clearTimeout(timer);
      resolve(m[1]);
    }
  };
  serve.stdout.on('data', onData);
  serve.stderr.on('data', (d) => (out += d));
});
// the CLI's peak RSS, written to stderr when it exits
const rssScript = join(tmp, 'rss.cjs');
// VmHWM of /proc/self/status: this process's own peak (getrusage's maxRSS of a forked child starts at its parent's)
writeFileSync(
  rssScript,
  "process.on('exit', () => { const fs = require('node:fs'); const m = /VmHWM:\\s*(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8')); fs.writeSync(2, `\\nmaxrss-kib ${m ? m[1] : process.resourceUsage().maxRSS}\\n`); });\n",
);

const period = ['--since', new Date(START).toISOString(), '--until', new Date(END).toISOString()];
const shapes = [
  { name: '`log top template` (30 days)', args: ['log', 'top', 'template', ...period, '-o', 'csv'] },
  { name: '`log top Reason,Machine --level Error`', args: ['log', 'top', 'Reason,Machine', '--level', 'Error', ...period, '-o', 'csv'] },
  { name: '`log top LicenseId` (50,000 values: counts bounded)', args: ['log', 'top', 'LicenseId', ...period, '-o', 'csv'] },
  { name: '`log report -o json`', args: ['log', 'report', ...period, '-o', 'json'] },
  { name: '`log report --html`', args: ['log', 'report', ...period, '--html', join(tmp, 'report.html')] },
];
const rows = [];
for (const s of shapes) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [LIC, ...s.args], {
    env: { PATH: process.env.PATH, HOME: tmp, LIC_BASE_URL: baseUrl, LIC_API_KEY: adminKey, NODE_OPTIONS: `--require ${rssScript}` },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const s_ = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) {
    stop();
    throw new Error(`lic ${s.args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  }
  const rss = Number(/maxrss-kib (\d+)/.exec(r.stderr)?.[1]) / 1024;
  const load = os.loadavg()[0];
  rows.push(
    `| ${s.name} | ${s_.toFixed(1)} | ${Math.round(ROWS / s_).toLocaleString('en-US')} | ${rss.toFixed(0)} | ${rss <= 150 ? 'met' : '**missed**'} | ${load.toFixed(1)} |`,
  );
  console.error(`${s.name}: ${s_.toFixed(1)} s, ${rss.toFixed(0)} MB`);
}
stop();

const text = `# \`lic log top\` and \`lic log report\` over ${ROWS.toLocaleString('en-US')} entries

Written by \`${process.env.BENCH_ROWS ? `BENCH_ROWS=${ROWS} ` : ''}node bench/log-top.mjs\` on ${new Date().toISOString().slice(0, 10)} (Node ${process.version}, ${os.cpus().length} CPUs,
${os.cpus()[0]?.model ?? 'unknown CPU'}, shared with other work: the load average is beside each figure). One run of each,
the built CLI piped, process start included, against \`lic serve\` on 127.0.0.1 over the log of
[log-seed.mjs](log-seed.mjs) (30 days; 80 % Information, 3 % Error). Each command reads every entry
of its selection page after page (1000 a page, only the fields it needs), so its time is the stream's;
RSS is the CLI's peak (VmHWM), the target ≤ 150 MB. Figures, not asserts.

| command | s | entries/s | CLI peak RSS (MB) | ≤ 150 MB | load |
|---|---:|---:|---:|---|---:|
${rows.join('\n')}

\`entries/s\` divides the log's size by the time even where a filter selects fewer (\`--level Error\`:
the service pages through the 3 % that match). \`log top LicenseId\` meets 50,000 distinct values,
more than the 40,000 a count keeps: it prints the most frequent exactly as long as they stay above
the bound it reports (\`countsLowBy\` in its JSON).
`;
writeFileSync(join(ROOT, 'bench/log-top.md'), text);
console.error(text);
