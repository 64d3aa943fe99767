/**
 * Writes while another process holds the database's write lock (the sqlite3 shell, a backup
 * tool, a second `lic serve` on the same file). better-sqlite3 is synchronous, so SQLite's
 * own busy wait would stall every request of the service for as long as it waits. A write
 * of the service instead tries the lock without waiting and, while someone else holds it,
 * waits asynchronously — other requests, reads included, keep being served — for
 * BUSY_WAIT_MS at most; then it is refused with 503 (code 14, UNAVAILABLE, `Retry-After`),
 * having changed nothing. A spell of refusals is logged: a line through `warn` when it
 * begins and when it ends, and one Warning entry in the service's log once the log can be
 * written again (counting the refused writes), never one per request.
 */
import { Code } from '../wire.js';
import type { Db } from './db.js';
import { ServiceError } from './errors.js';
import { waitingForLock } from './lock-wanted.js';
import { writeLog } from './log-writer.js';

/** How long a write waits for another process's write lock before its 503, in ms. */
export const BUSY_WAIT_MS = 2000;
/** The `Retry-After` of that 503, in seconds. */
export const BUSY_RETRY_AFTER_S = 2;
/**
 * SQLite's own (blocking) busy wait, in ms, for the few writes that cannot wait
 * asynchronously: failed-authentication entries, a 500's entry, the windows of a log purge.
 * It holds up the whole service while it waits, so it is short.
 */
const SYNC_BUSY_MS = 100;
/** Pauses between attempts while the lock is held elsewhere, in ms (the last one repeats). */
const BACKOFF_MS = [5, 10, 20, 40, 80, 160, 250];
/** How often a spell of refusals checks whether the log can be written again, in ms. */
const PROBE_MS = 1000;

/** Whether `e` is SQLite saying another connection holds the lock it needs (SQLITE_BUSY and its extended codes). */
export function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** The 503 of a write that waited BUSY_WAIT_MS for the lock in vain (the caller sets `Retry-After`, which says when to retry). */
export const databaseBusy = () =>
  new ServiceError(
    503,
    Code.UNAVAILABLE,
    `the database is locked by another process (a write transaction held outside the service); nothing was changed`,
  );

/** A spell of writes refused because the lock was held elsewhere: when it began and ended, how many, the last one. */
interface Spell {
  since: number;
  last: number;
  refused: number;
  lastRequest: string;
}

/** The write gate of one service over `db`: see the module comment. */
export interface WriteGate {
  /**
   * Runs `work` (synchronous database work) in one IMMEDIATE transaction, retrying while
   * another process holds the write lock, for BUSY_WAIT_MS at most. Resolves to what `work`
   * returned; rejects with its error (rolled back), or with databaseBusy() after the wait.
   * `request` (`POST /v1/resources`) names the write in the log of a spell.
   */
  write<T>(request: string, work: () => T): Promise<T>;
  /** Records a write refused with 503 elsewhere (a synchronous write that met the lock). */
  refused(request: string): void;
  /** Stops the probe of an open spell (the service is closing). */
  close(): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Builds the gate over `db` (whose busy timeout it sets to SYNC_BUSY_MS), the service
 * clock `now` (for the log entry), and `warn`, which receives one line when a spell of
 * refusals begins and one when it ends (for stderr); absent, only the log entry is kept.
 */
export function createWriteGate(db: Db, now: () => Date, warn: (line: string) => void = () => {}): WriteGate {
  db.pragma(`busy_timeout = ${SYNC_BUSY_MS}`);
  // prepared once; a PRAGMA that sets a value also returns it, hence get()
  const noWait = db.prepare('PRAGMA busy_timeout = 0');
  const syncWait = db.prepare(`PRAGMA busy_timeout = ${SYNC_BUSY_MS}`);
  let spell: Spell | undefined;
  let probe: NodeJS.Timeout | undefined;

  /** Writes the spell's Warning entry; true when written (the spell is then over), false while the lock is still held. */
  const endSpell = (): boolean => {
    const s = spell;
    if (!s) return true;
    const props = {
      Refused: s.refused,
      Since: new Date(s.since).toISOString(),
      Until: new Date(s.last).toISOString(),
      WaitMs: BUSY_WAIT_MS,
      LastRequest: s.lastRequest,
    };
    noWait.get();
    try {
      writeLog(
        db,
        now(),
        'Warning',
        'The database was locked by another process: {Refused} writes refused with 503 after waiting {WaitMs} ms, from {Since} to {Until} (the last: {LastRequest})',
        props,
      );
    } catch (e) {
      if (isBusy(e)) return false;
      throw e;
    } finally {
      syncWait.get();
    }
    spell = undefined;
    clearInterval(probe);
    probe = undefined;
    warn(`the database is writable again; ${s.refused} write(s) were refused with 503 while another process held its lock`);
    return true;
  };

  const refused = (request: string) => {
    const t = Date.now();
    if (spell) {
      spell.refused++;
      spell.last = t;
      spell.lastRequest = request;
      return;
    }
    spell = { since: t, last: t, refused: 1, lastRequest: request };
    warn(
      `the database is locked by another process (a write transaction held outside the service): ${request} was refused with 503 after waiting ${BUSY_WAIT_MS} ms, as are other writes until it is released`,
    );
    probe = setInterval(() => {
      try {
        endSpell();
      } catch (e) {
        warn(`cannot write to the database: ${(e as Error).message}`);
      }
    }, PROBE_MS);
    probe.unref();
  };

  return {
    async write<T>(request: string, work: () => T): Promise<T> {
      const deadline = Date.now() + BUSY_WAIT_MS;
      // counted among the writes waiting for the lock once an attempt meets it (lock-wanted.ts)
      let waiting = false;
      try {
        for (let attempt = 0; ; attempt++) {
          let done = false;
          let result: T | undefined;
          noWait.get();
          try {
            result = db.transaction(work).immediate();
            done = true;
          } catch (e) {
            if (!isBusy(e)) throw e;
          } finally {
            syncWait.get();
          }
          if (done) {
            // the lock is ours again: close the spell (its entry is best effort here; the probe retries it)
            if (spell) {
              try {
                endSpell();
              } catch {
                /* the write itself is committed */
              }
            }
            return result as T;
          }
          if (!waiting) {
            waiting = true;
            waitingForLock(db, 1);
          }
          const left = deadline - Date.now();
          if (left <= 0) {
            refused(request);
            throw databaseBusy();
          }
          await sleep(Math.min(BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)]!, left));
        }
      } finally {
        if (waiting) waitingForLock(db, -1);
      }
    },
    refused,
    close() {
      clearInterval(probe);
      probe = undefined;
    },
  };
}
