// The log the benchmarks run on: bench/run.mjs, bench/stream-profile.mjs and bench/serve.mjs build it the same way.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
const H = 3_600_000;
const DAY = 24 * H;
/** Bumped whenever what buildLog builds changes, so that a log kept by bench/run.mjs (BENCH_DB_DIR) is built again. */
export const SEED_VERSION = 2;
/** The log's newest day ends here; it spans the 30 days before. */
export const END = Date.parse('2025-01-31T00:00:00.000Z');
export const START = END - 30 * DAY;

const LEVELS = [
  ['Information', 0.8],
  ['Warning', 0.08],
  ['Debug', 0.06],
  ['Error', 0.03],
  ['Verbose', 0.028],
  ['Fatal', 0.002],
];
const PRODUCTS = ['Babel Obfuscator', 'Babel Licensing', 'Report Designer', 'Grid Suite', 'PDF Toolkit'];
const TEMPLATES = {
  Information: [
    'License {LicenseId} validated for {Product} on {Machine}',
    'Floating license {LicenseId} granted to {Machine} ({InUse}/{Seats} seats in use)',
    'Activation of license {LicenseId} on {Machine} succeeded',
    'Floating license {LicenseId} released by {Machine}',
    '{Method} {Path} by API key {ApiKeyId} of user {OwnerId}',
  ],
  Warning: [
    'Authentication failed for {Method} {Path}: {Reason}',
    'License {LicenseId} for {Product} expires in {Days} days',
    'Floating license request for {LicenseId} from {Machine} denied: all {Seats} seats in use',
  ],
  Debug: ['License cache hit for {LicenseId} ({Elapsed} ms)', 'Request {RequestId} handled in {Elapsed} ms'],
  Error: ['Activation of license {LicenseId} on {Machine} failed: {Reason}', 'Signing license {LicenseId} failed: {Reason}'],
  Verbose: ['Checking hardware id of {Machine} against license {LicenseId}'],
  Fatal: ['Unhandled exception in {Component}'],
};
const EXCEPTION = `System.InvalidOperationException: The license signature is not valid.
   at Babel.Licensing.LicenseValidator.Validate(License license)
   at Babel.Licensing.Service.ActivationController.Activate(ActivationRequest request)`;

/**
 * Builds a log of `rows` entries over the 30 days before END, in time order as a service writes
 * them, into a SQLite file through `server` (dist/server.cjs: openDatabase, the real schema,
 * indexes and count triggers; writeLogEntries, which starts a partition per UTC day as the
 * service does; indexLog, the full-text index the service builds in the background, here in
 * bulk). Returns the milliseconds of the inserts and of the index.
 */
export function buildLog(server, file, rows) {
  const db = server.openDatabase(file); // the real schema: migrations, indexes, count triggers
  // bulk load only: no journal, no fsync, a large page cache
  db.pragma('journal_mode = DELETE');
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  let seed = 20250131;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  const span = END - START;
  const t0 = performance.now();
  let batch = [];
  for (let i = 0; i < rows; i++) {
    const t = START + Math.floor(((i + rnd()) / rows) * span);
    let r = rnd();
    let level = 'Information';
    for (const [l, p] of LEVELS) {
      if (r < p) {
        level = l;
        break;
      }
      r -= p;
    }
    const template = pick(TEMPLATES[level]);
    const seats = 5 + Math.floor(rnd() * 20);
    const props = {
      LicenseId: 100000 + Math.floor(rnd() * 50000),
      Product: pick(PRODUCTS),
      Machine: `WS-${String(Math.floor(rnd() * 5000)).padStart(4, '0')}`,
      InUse: Math.floor(rnd() * seats),
      Seats: seats,
      Method: pick(['POST', 'PUT', 'DELETE']),
      Path: pick(['/v1/api-keys', '/v1/resources', '/v1/assemblies']),
      ApiKeyId: 1 + Math.floor(rnd() * 40),
      OwnerId: pick(['admin', 'sales', 'lm']),
      Reason: pick(['unknown API key', 'hardware id mismatch', 'license expired', 'signature check failed']),
      Days: 1 + Math.floor(rnd() * 30),
      RequestId: Math.floor(rnd() * 1e9).toString(16),
      Elapsed: Math.floor(rnd() * 200),
      Component: pick(['LicenseValidator', 'FloatingLicenseManager']),
    };
    const used = {};
    const message = template.replace(/\{(\w+)\}/g, (_, k) => String((used[k] = props[k])));
    const exception = level === 'Error' || level === 'Fatal' ? EXCEPTION : '';
    batch.push([t, level, message, template, exception, JSON.stringify(used)]);
    if (batch.length === 20_000) {
      server.writeLogEntries(db, batch);
      batch = [];
    }
  }
  server.writeLogEntries(db, batch);
  const insertMs = performance.now() - t0;
  const t1 = performance.now();
  server.indexLog(db, 1_000_000);
  const indexMs = performance.now() - t1;
  db.pragma('journal_mode = WAL');
  const n = db.prepare('SELECT entries FROM log_stats').pluck().get();
  if (n !== rows) throw new Error(`built ${n} entries, wanted ${rows}`);
  db.close();
  return { insertMs, indexMs };
}

/**
 * The log of `rows` entries kept in `dir` (log-<rows>.db, and a .json stamp: what built it,
 * when, in how long, under what load): reused when the stamp says it was built by this
 * seeder for the schema a new database gets now, else built there. Returns the file, the
 * stamp and whether it was reused.
 */
export function pristineLog(server, dir, rows) {
  const file = join(dir, `log-${rows}.db`);
  const stampFile = `${file}.json`;
  const probe = server.openDatabase(':memory:');
  const schema = createHash('sha256')
    .update(probe.prepare("SELECT group_concat(sql, ';') FROM sqlite_master").pluck().get())
    .digest('hex')
    .slice(0, 16);
  probe.close();
  if (existsSync(file) && existsSync(stampFile)) {
    const stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
    if (stamp.rows === rows && stamp.seed === SEED_VERSION && stamp.schema === schema) return { file, stamp, reused: true };
  }
  for (const s of ['', '-wal', '-shm']) rmSync(file + s, { force: true });
  const load = os.loadavg()[0];
  const { insertMs, indexMs } = buildLog(server, file, rows);
  const stamp = { rows, seed: SEED_VERSION, schema, insertMs, indexMs, load, date: new Date().toISOString(), node: process.version };
  writeFileSync(stampFile, JSON.stringify(stamp, null, 2));
  return { file, stamp, reused: false };
}
