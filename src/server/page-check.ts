/**
 * The check of a database file too big to check before listening (over the start's
 * threshold, QUICK_CHECK_MAX_BYTES in ./index.ts), run while the service answers: SQLite's
 * `PRAGMA quick_check` in a worker thread, on a read-only connection of its own (WAL lets it
 * read beside the service's writes; it writes nothing and never opens the serve lock file,
 * ./serve-lock.ts). It checks one table at a time (`PRAGMA quick_check(TABLE)`: the table's
 * b-tree and its indexes, virtual tables by their own check), all in one read transaction, so
 * every table is seen as of one moment (a table dropped meanwhile, by a purge, is still
 * there to check; the WAL is not reset while it lasts, so it grows by the writes of the
 * check's few seconds). A stop (close()) ends the worker between two tables:
 * SQLite can't be interrupted inside a statement from here (better-sqlite3 has no
 * sqlite3_interrupt), so the wait is one table's check at most (~0.1 s for a day of a
 * 1M-entry log, bench/serve.md). What a check table by table can't see, and the whole check
 * before listening does: pages that no table uses, or that two tables share, and the list
 * of free pages (SQLite's "partial integrity check"); the start's warning names the sqlite3
 * command that checks those too.
 */
import type { Worker } from 'node:worker_threads';
import { startDbWorker } from './db-worker.js';

/** What a check found: `ok` (nothing), `damaged` (`found`: quick_check's first problem), `failed` (it could not run: `found` says why), `stopped` (stopped first). */
interface PageCheckResult {
  outcome: 'ok' | 'damaged' | 'failed' | 'stopped';
  /** damaged: SQLite's first problem, as quick_check words it; failed: the error */
  found?: string;
  /** ms from the worker's start to its answer */
  ms: number;
}

/** A check under way: its result (never rejects), and stop(), which ends the worker and resolves once it is gone. */
export interface PageCheck {
  result: Promise<PageCheckResult>;
  stop(): Promise<void>;
}

/**
 * The worker's source text (../db-worker.ts gives it `Database`). Tables in the order of their
 * root pages (the file's order, more or less), virtual tables (root page 0: the log's full-text indexes, whose check reads the
 * tables they index) last, so a damaged b-tree is named as such; the first problem found ends
 * the check. A read-only connection: quick_check
 * reads, and SQLITE_CORRUPT while listing the tables is damage too (told apart by the main
 * thread from the error's code).
 */
const CHECK_WORKER = `
const t0 = Date.now();
let db;
try {
  db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  db.exec('BEGIN');
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY rootpage = 0, rootpage").pluck().all();
  let found;
  for (const t of ['sqlite_schema', ...tables]) {
    // the first row only: after the b-trees' problems SQLite scans the rows, and a damaged page
    // then fails the statement (SQLITE_CORRUPT), which all() would report instead of them
    try {
      for (const row of db.prepare('PRAGMA quick_check("' + t.replaceAll('"', '""') + '")').pluck().iterate()) {
        if (row !== 'ok') found = String(row);
        break;
      }
    } catch (e) {
      if (!String(e?.code).startsWith('SQLITE_CORRUPT')) throw e;
      found = e.message + ' (table ' + t + ')';
    }
    if (found !== undefined) break;
  }
  db.exec('COMMIT');
  db.close();
  parentPort.postMessage({ outcome: found === undefined ? 'ok' : 'damaged', found, ms: Date.now() - t0 });
} catch (e) {
  try { db?.close(); } catch {}
  const code = String(e?.code ?? '');
  const damaged = code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB';
  parentPort.postMessage({ outcome: damaged ? 'damaged' : 'failed', found: String(e?.message ?? e), ms: Date.now() - t0 });
}`;

/**
 * Starts the check of the database file `file` in a worker thread (unref'd: it keeps no
 * process alive). The worker may fail to start (no threads, the driver not loadable there):
 * the result is then `failed` with the reason.
 */
export function checkPagesInBackground(file: string): PageCheck {
  let worker: Worker;
  try {
    worker = startDbWorker(CHECK_WORKER, { file });
  } catch (e) {
    const result = Promise.resolve<PageCheckResult>({ outcome: 'failed', found: (e as Error).message, ms: 0 });
    return { result, stop: async () => {} };
  }
  worker.unref();
  const t0 = Date.now();
  let settle: (r: PageCheckResult) => void = () => {};
  const result = new Promise<PageCheckResult>((resolve) => (settle = resolve));
  let stopping = false;
  worker.once('message', (m: PageCheckResult) => settle(m));
  worker.once('error', (e) => settle({ outcome: 'failed', found: e.message, ms: Date.now() - t0 }));
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', (code) => {
      // the first settle wins: an answer posted before the exit stands
      settle(
        stopping
          ? { outcome: 'stopped', ms: Date.now() - t0 }
          : { outcome: 'failed', found: `the check's thread ended (exit ${code})`, ms: Date.now() - t0 },
      );
      resolve();
    }),
  );
  return {
    result,
    async stop() {
      stopping = true;
      // takes effect when the table being checked is done (the statement returns to JavaScript)
      await worker.terminate();
      await exited;
    },
  };
}
