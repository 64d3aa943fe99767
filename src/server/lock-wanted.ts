/**
 * How many of the service's writes are waiting for the database's write lock, in memory a
 * worker thread can read (a SharedArrayBuffer): a worker that takes the lock in turns on a
 * connection of its own (the log's drop worker, server/log/purge.ts) lets them in before its
 * next turn instead of making them wait it out. Per database.
 */
import type { Db } from './db.js';

const counts = new WeakMap<Db, Int32Array>();

/** The shared count of `db` (one Int32 over a SharedArrayBuffer), made on first use. */
export function lockWanted(db: Db): Int32Array {
  let c = counts.get(db);
  if (!c) counts.set(db, (c = new Int32Array(new SharedArrayBuffer(4))));
  return c;
}

/** A write of `db` starts (+1) or stops (-1) waiting for its write lock. */
export function waitingForLock(db: Db, change: 1 | -1): void {
  Atomics.add(lockWanted(db), 0, change);
}
