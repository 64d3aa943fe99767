/**
 * The local reference service (`lic serve`). Loaded by dynamic import only; imports
 * nothing from the CLI or the client (docs/architecture.md: the server stands alone).
 */
import { statSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { buildApp, type ConnectionLimits, type LogSink } from './app.js';
import type { AuthFailLimit } from './auth-guard.js';
import { generateApiKey, hashApiKey, keyPrefix } from './auth.js';
import { damage, openDatabase, type Db } from './db.js';
import { describeFsError, readFileBounded, sizeLimitText } from '../bounded-read.js';
import { resumeLogWork } from './log/purge.js';
import { openSecrets, type SecretKeySource } from './secrets.js';
import { acquireServeLock } from './serve-lock.js';
import { filesMadeBy } from './made-files.js';
import { checkPagesInBackground, type PageCheck } from './page-check.js';
import { fieldWithLoneSurrogate } from './text.js';

export { buildApp } from './app.js';
export { openDatabase } from './db.js';
export { writeLogEntries } from './log-writer.js';
export { indexLog } from './log/fts.js';
export { generateApiKey, hashApiKey } from './auth.js';
export { SecretKeyError } from './secrets.js';
export { DatabaseInUseError } from './serve-lock.js';
export { seededSummary } from './seed/summary.js';
export { parseAuthFailLimit, DEFAULT_AUTH_FAIL_LIMIT, type AuthFailLimit } from './auth-guard.js';

export interface StartOptions {
  /** SQLite file, or `:memory:` */
  dbPath: string;
  host?: string;
  /** 0 = ephemeral */
  port?: number;
  /** `demo` for the built-in dataset, or the path of a dataset JSON file; applied to an empty database only */
  seed?: string;
  now?: () => Date;
  generateKey?: () => string;
  /** fastify request logging (pino) into this sink; off when absent or false (AppOptions.logger) */
  logger?: false | LogSink;
  /** one line for the operator (stderr) about what the service's own log may not hold (AppOptions.warn) */
  warn?: (line: string) => void;
  /** the failed-authentication guard; default 5 failures per 60 s, limit 0 = off */
  authFailLimit?: AuthFailLimit;
  /** slow clients' timeouts (408) and the cap on open connections; the defaults of defaultConnectionLimits() for what is not given */
  connections?: Partial<ConnectionLimits>;
  /** LIC_SECRET_KEY: the key that seals resource passwords (base64/hex, 32 bytes); default a `<db>.key` file beside the database */
  secretKey?: string;
  /** ms a log read with a costly filter may take (log/budget.ts); default LOG_READ_BUDGET_MS */
  logReadBudgetMs?: number;
  /** a database file up to this many bytes is checked before listening, a larger one in the background; default QUICK_CHECK_MAX_BYTES */
  quickCheckMaxBytes?: number;
}

/**
 * How the database's pages were checked (SQLite's quick_check), RunningService.check:
 * - `start`: before listening, and nothing was found (damage refuses the start);
 * - `ok`: in the background (a file over the threshold), and nothing was found;
 * - `damaged`: in the background, and damage was found: `message` is DatabaseDamagedError's
 *   line (the start refusal's text); every request is answered 503 from then on;
 * - `failed`: the background check could not run (`message` says why; a warning went to `warn`);
 * - `stopped`: close() came before it ended;
 * - `none`: a database in memory.
 */
export interface PagesChecked {
  outcome: 'start' | 'ok' | 'damaged' | 'failed' | 'stopped' | 'none';
  message?: string;
  /** how long the background check took, in ms */
  ms?: number;
}

export interface IssuedKey {
  userId: string;
  role: string;
  name: string;
  key: string;
}

export interface RunningService {
  app: FastifyInstance;
  db: Db;
  /** `http://host:port` it bound */
  url: string;
  /** keys made on this start (bootstrap Administrator, or the seeded users'); empty on a reused database */
  issuedKeys: IssuedKey[];
  /** true when `seed` was given but the database already held data, so nothing was loaded */
  seedSkipped: boolean;
  /** where the key sealing resource passwords came from (a file made on this start: tell the user to back it up) */
  secretKeySource: SecretKeySource;
  /** true when `key` is a (not necessarily valid) API key stored in this database */
  ownsKey(key: string): boolean;
  /**
   * The check of the database's pages: settled at once for a file checked before listening
   * (or in memory); for a larger one, when the check in the background ends. Never rejects.
   * When it finds damage, the service answers every request 503 (code 14, the damage named)
   * and logs nothing itself: the caller says so and closes it (`lic serve`: one line, exit 1).
   */
  check: Promise<PagesChecked>;
  /** stops accepting, finishes in-flight requests, ends a background check still running, closes the database */
  close(): Promise<void>;
}

/** A database file up to this size is checked before listening (PRAGMA quick_check: ~3-7 s at this size on 2 busy cores); a larger one in the background. */
export const QUICK_CHECK_MAX_BYTES = 256 * 1024 * 1024;

/** Thrown when PRAGMA quick_check finds the database file damaged; the message names the file and what was found. */
export class DatabaseDamagedError extends Error {}

/** quick_check's first problem: its first line, without SQLite's `*** in database main ***` heading, 200 characters at most. */
const firstProblem = (found: string) =>
  found
    .replace(/^\*\*\* in database \S+ \*\*\*\n/, '')
    .split('\n')[0]!
    .slice(0, 200);

/** DatabaseDamagedError's line: the file, quick_check's first problem, what to do. */
function damagedLine(dbPath: string, found: string): string {
  return `${dbPath}: the database is damaged (SQLite quick_check: ${firstProblem(found)}); restore it from a backup, or recover what is left with the sqlite3 shell's .recover`;
}

/** The 503 of every request once the background check found damage: what was found and the fix, not the file's path (the caller is not the operator). */
function damagedReply(found: string): string {
  return `the service's database is damaged (SQLite quick_check: ${firstProblem(found)}) and the service is stopping; its operator must restore the database from a backup`;
}

/** Thrown for a dataset that cannot be loaded; the message starts with the file's path and names the bad field. */
export class SeedError extends Error {}

/** A dataset file (`lic serve --seed FILE`) may be this large; it is parsed whole. */
export const MAX_SEED_BYTES = 64 * 1024 * 1024;

function isEmpty(db: Db): boolean {
  return db.prepare('SELECT count(*) FROM users').pluck().get() === 0;
}

/** First start: an Administrator user and a key with permissions 7. */
function bootstrap(db: Db, now: Date, generateKey: () => string): IssuedKey {
  const key = generateKey();
  db.transaction(() => {
    db.prepare("INSERT INTO users (id, name, email, role, created_at) VALUES ('admin', 'Administrator', '', 'Administrator', ?)").run(
      now.getTime(),
    );
    db.prepare(
      `INSERT INTO api_keys (name, owner_id, permissions, description, created_at, key_prefix, key_hash)
       VALUES ('bootstrap', 'admin', 7, 'made on first start of lic serve', ?, ?, ?)`,
    ).run(now.getTime(), keyPrefix(key), hashApiKey(key));
  })();
  return { userId: 'admin', role: 'Administrator', name: 'bootstrap', key };
}

async function seedDatabase(
  db: Db,
  seed: string,
  now: Date,
  generateKey: () => string,
  sealSecret: (plain: string) => string,
): Promise<IssuedKey[]> {
  const { parseDataset, DatasetError } = await import('./seed/dataset.js');
  const { loadDataset } = await import('./seed/load.js');
  let dataset;
  if (seed === 'demo') {
    const { buildDemoDataset } = await import('./seed/demo.js');
    dataset = buildDemoDataset(now);
  } else {
    let bytes: Buffer;
    try {
      bytes = await readFileBounded(seed, MAX_SEED_BYTES);
    } catch (e) {
      throw new SeedError(`${seed}: cannot read it: ${describeFsError(e)}`);
    }
    if (bytes.length > MAX_SEED_BYTES) throw new SeedError(`${seed}: ${sizeLimitText(MAX_SEED_BYTES)}`);
    const text = bytes.toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new SeedError(`${seed}: not a JSON dataset (${(e as Error).message})`);
    }
    // valid JSON, but not text: it would be stored as bytes that are not UTF-8
    const lone = fieldWithLoneSurrogate(text, json);
    if (lone !== undefined)
      throw new SeedError(
        `${seed}: ${lone || 'the dataset'} holds an unpaired surrogate escape (\\uD800-\\uDFFF alone), which is not valid Unicode`,
      );
    try {
      dataset = parseDataset(json);
    } catch (e) {
      if (e instanceof DatasetError) throw new SeedError(`${seed}: ${e.message}`);
      throw e;
    }
  }
  const { keys } = loadDataset(db, dataset, { now, hashKey: hashApiKey, generateKey, sealSecret });
  return keys.map((k) => ({ userId: k.userId, role: k.role, name: k.name, key: k.key }));
}

/**
 * Takes the database's lock file (`<db>.lock`, ./serve-lock.ts), opens the database, checks
 * its pages (a file over `quickCheckMaxBytes`: after listening, in the background, see
 * RunningService.check), listens, then seeds or bootstraps it if empty. Returns the running
 * service; throws DatabaseDamagedError for a damaged file checked before listening,
 * DatabaseInUseError when another live service holds the file, SeedError for a bad dataset
 * (nothing loaded), or the listen error (EADDRINUSE…). A start that fails removes the
 * database, key and lock files it made.
 */
export async function startService(opts: StartOptions): Promise<RunningService> {
  const now = opts.now ?? (() => new Date());
  const generateKey = opts.generateKey ?? generateApiKey;
  const onFile = opts.dbPath !== ':memory:' && opts.dbPath !== '';
  // one service per database file (./serve-lock.ts): refused before anything is opened
  const lock = onFile ? acquireServeLock(opts.dbPath) : undefined;
  // what a failed start removes again: the files it made (./made-files.ts)
  const made = onFile ? filesMadeBy(opts.dbPath) : undefined;
  let db: Db;
  try {
    db = openDatabase(opts.dbPath);
  } catch (e) {
    made?.remove();
    lock?.release();
    throw e;
  }
  let app: FastifyInstance | undefined;
  try {
    // a file damaged in its middle opens fine: refused here, before any request meets it; the check reads every
    // page (~13-29 ms a MiB measured), so a file over the threshold is checked after listening, in the background
    const bytes = onFile ? statSync(opts.dbPath).size : 0;
    const inBackground = bytes > (opts.quickCheckMaxBytes ?? QUICK_CHECK_MAX_BYTES);
    if (inBackground) {
      opts.warn?.(
        `the database is ${Math.round(bytes / 1048576)} MiB, so its pages are checked in the background while it serves (PRAGMA quick_check takes ~15-30 s a GiB); found damaged, the service stops; a full check: sqlite3 ${opts.dbPath} 'PRAGMA quick_check'`,
      );
    }
    const damaged = inBackground || !onFile ? undefined : damage(db);
    if (damaged !== undefined) throw new DatabaseDamagedError(damagedLine(opts.dbPath, damaged));
    // set once the background check finds damage: every request is then refused with it (app.ts)
    let refusal: string | undefined;
    resumeLogWork(db);
    const secrets = openSecrets(db, opts.dbPath, opts.secretKey);
    const sealSecret = (plain: string) => secrets.box.seal(plain);
    app = await buildApp({
      db,
      now,
      generateKey,
      sealSecret,
      logger: opts.logger,
      warn: opts.warn,
      authFailLimit: opts.authFailLimit,
      connections: opts.connections,
      logReadBudgetMs: opts.logReadBudgetMs,
      unavailable: () => refusal,
    });
    await app.listen({ host: opts.host ?? '127.0.0.1', port: opts.port ?? 0 });
    // Keys are made only once the port is ours: the first start's keys are shown only by
    // this start, so a failed listen (EADDRINUSE) must not use them up.
    let issuedKeys: IssuedKey[] = [];
    let seedSkipped = false;
    if (isEmpty(db)) {
      issuedKeys = opts.seed ? await seedDatabase(db, opts.seed, now(), generateKey, sealSecret) : [bootstrap(db, now(), generateKey)];
    } else if (opts.seed) {
      seedSkipped = true;
    }
    const addr = app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : opts.port;
    const host = opts.host ?? '127.0.0.1';
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    lock?.listening(url);
    let closed = false;
    const running = app;
    const checking: PageCheck | undefined = inBackground ? checkPagesInBackground(opts.dbPath) : undefined;
    const check: Promise<PagesChecked> = checking
      ? checking.result.then((r) => {
          if (r.outcome === 'damaged') {
            refusal = damagedReply(r.found ?? '');
            return { outcome: 'damaged', message: damagedLine(opts.dbPath, r.found ?? ''), ms: r.ms };
          }
          if (r.outcome === 'failed') {
            const why = `the check of the database's pages in the background could not run (${r.found}); check it with: sqlite3 ${opts.dbPath} 'PRAGMA quick_check'`;
            opts.warn?.(why);
            return { outcome: 'failed', message: why, ms: r.ms };
          }
          return { outcome: r.outcome, ms: r.ms };
        })
      : Promise.resolve({ outcome: onFile ? 'start' : 'none' });
    return {
      app,
      db,
      url,
      issuedKeys,
      seedSkipped,
      secretKeySource: secrets.source,
      check,
      ownsKey: (key: string) => db.prepare('SELECT 1 FROM api_keys WHERE key_hash = ?').pluck().get(hashApiKey(key)) !== undefined,
      async close() {
        if (closed) return;
        closed = true;
        // the worker's connection goes before the service's: the last to close checkpoints the WAL and removes it
        await Promise.all([running.close(), checking?.stop()]);
        db.close();
        lock?.release();
      },
    };
  } catch (e) {
    await app?.close();
    db.close();
    // a start that did not get to serve leaves no database or key file behind (a port in use, a bad dataset)
    made?.remove();
    lock?.release();
    throw e;
  }
}
