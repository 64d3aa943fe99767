/**
 * One service per database file (docs/local-service.md, "One service per database"). The
 * service holds SQLite's write lock (RESERVED: one connection at a time) on an empty file
 * beside the database, `<db>.lock`, for as long as it serves it, in a transaction it never
 * ends. On Unix SQLite's locks are POSIX record locks (fcntl): the kernel drops them when the
 * process ends however it ends (SIGKILL, a crash; a reboot leaves none), and every process
 * using the file sees them, in another PID namespace (containers sharing a volume) too. So no
 * lock is ever judged stale by a process id and taken over: it is held by a live process or
 * free. A second start gets SQLITE_BUSY at once (busy timeout 0) and is refused. The write
 * lock, not SQLite's EXCLUSIVE one: starters taking the lock at the same instant each hold a
 * SHARED lock on the way, and the step from SHARED to EXCLUSIVE waits for every other SHARED
 * to go, so with no waiting all of them could fail; the write lock needs no other to go.
 *
 * What the refusal names (the holder's process id and URL) is in a side file, `<db>.lock.json`,
 * written whole by the holder once it holds the lock and removed by it before it lets the lock
 * go (a holder can't publish it inside the lock file: that would end its transaction). It
 * carries a stamp, the lock file's change time as the holder took it, so that one left by a
 * killed holder is not taken for the current holder's. A side file missing, unreadable or
 * stale (after a short wait for the holder to write it) gives the refusal without them.
 *
 * A clean stop removes both files. The lock file is removed while it is still locked, so a
 * start that locked a file which has since been removed (it opened the file just before its
 * holder stopped) sees that the path names another file or none, and tries again on the new one.
 *
 * POSIX record locks belong to a process, and closing any descriptor of the file drops all the
 * process's locks on it: nothing here opens a lock file this process holds (the registry `held`
 * answers for a second start in the same process; it is per thread, so no service runs in a
 * worker thread), and no other code may open `<db>.lock`.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  futimesSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import Database from 'better-sqlite3';

/** Another process (or another service in this one) serves the database; its id and URL when its side file tells them. */
export class DatabaseInUseError extends Error {
  constructor(
    readonly dbPath: string,
    /** the serving process's id, as its own PID namespace numbers it; undefined when its side file is missing or unreadable */
    readonly pid: number | undefined,
    /** undefined while it is still starting, or when its side file does not tell */
    readonly url: string | undefined,
    readonly lockPath: string,
  ) {
    super(
      `the database ${dbPath} is already served by ${pid === undefined ? 'another lic serve' : `lic serve process ${pid}${url ? ` at ${url}` : ' (still starting)'}`}: use that one, stop it first, or choose another --db`,
    );
    this.name = 'DatabaseInUseError';
  }
}

/** What the side file says (one line of JSON). */
interface HolderInfo {
  pid: number;
  /** the lock file's change time (ns since the epoch) as its holder took it: a side file left by an earlier holder has another */
  stamp?: string;
  url?: string;
}

/** A lock this process holds: `listening` records the URL in the side file; `release` removes both files and lets the lock go (idempotent). */
export interface ServeLock {
  path: string;
  listening(url: string): void;
  release(): void;
}

/** Lock files held by this process, by device and inode: a second start here must not open one (see above). */
const held = new Set<string>();

const fileId = (s: Stats) => `${s.dev}:${s.ino}`;

/** The side file's content; undefined when it is missing, not a regular file, too long or not what a holder writes. Never blocks. */
function readInfo(path: string): HolderInfo | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO put there would otherwise block the open
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const info = JSON.parse(buf.toString('utf8', 0, n)) as Partial<HolderInfo>;
    if (!Number.isInteger(info.pid) || info.pid! <= 0) return undefined;
    return {
      pid: info.pid!,
      stamp: typeof info.stamp === 'string' ? info.stamp : undefined,
      url: typeof info.url === 'string' ? info.url : undefined,
    };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Writes `info` to `path` whole (a temporary file renamed into place), 0600. */
function writeInfo(path: string, info: HolderInfo): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, `${JSON.stringify(info)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    renameSync(tmp, path);
  } catch (e) {
    unlinkSync(tmp);
    throw e;
  }
}

function unlinkIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as { code?: string }).code !== 'ENOENT') throw e;
  }
}

const sqliteCode = (e: unknown) => (e as { code?: string }).code;

/**
 * Takes the lock `<dbPath>.lock` for this process (creating the file, 0600) and writes
 * `<dbPath>.lock.json` (0600) naming it. Throws DatabaseInUseError when another process, or
 * another service in this one, holds it; the fs or SQLite error when the file can't be made
 * or opened. Called before the database is opened; never waits.
 */
export function acquireServeLock(dbPath: string): ServeLock {
  const path = `${dbPath}.lock`;
  const infoPath = `${path}.json`;
  const refused = () => {
    const info = currentInfo(path, infoPath);
    return new DatabaseInUseError(dbPath, info?.pid, info?.url, path);
  };
  // a few rounds: each one after the first means the file was removed by a holder that stopped meanwhile
  for (let attempt = 0; attempt < 20; attempt++) {
    const there = statSync(path, { throwIfNoEntry: false });
    if (there && held.has(fileId(there))) throw refused();
    const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
    let conn: Database.Database | undefined;
    let kept = false;
    try {
      const mine = fstatSync(fd);
      if ((mine.mode & 0o077) !== 0) chmodOwnerOnly(fd);
      conn = new Database(path, { timeout: 0 });
      try {
        takeWriteLock(conn);
      } catch (e) {
        if (sqliteCode(e) === 'SQLITE_BUSY') throw refused();
        if (sqliteCode(e) !== 'SQLITE_NOTADB') throw e;
        // not a SQLite file, so no lock file of a lic serve (those stay empty): made empty and tried again
        conn.close();
        conn = undefined;
        ftruncateSync(fd, 0);
        conn = new Database(path, { timeout: 0 });
        try {
          takeWriteLock(conn);
        } catch (e2) {
          if (sqliteCode(e2) === 'SQLITE_BUSY') throw refused();
          throw e2;
        }
      }
      // the path must still name the file locked: a holder removes its lock file as it stops
      const now = statSync(path, { throwIfNoEntry: false });
      if (!now || fileId(now) !== fileId(mine)) continue;
      const id = fileId(mine);
      held.add(id);
      kept = true;
      const lockConn = conn;
      const release = (): void => {
        if (!held.delete(id)) return;
        // the side file first, then the lock file, both while the lock is held: the next holder's are never touched
        try {
          unlinkIfThere(infoPath);
          unlinkIfThere(path);
        } finally {
          lockConn.close();
          closeSync(fd);
        }
      };
      const info: HolderInfo = { pid: process.pid, stamp: stampLock(fd) };
      try {
        writeInfo(infoPath, info);
      } catch (e) {
        release();
        throw e;
      }
      return {
        path,
        listening(url) {
          if (held.has(id)) writeInfo(infoPath, { ...info, url });
        },
        release,
      };
    } finally {
      if (!kept) {
        conn?.close();
        closeSync(fd);
      }
    }
  }
  throw refused();
}

/**
 * Marks the lock file as taken now (its times set, so its change time is now): the side file
 * written next records that change time, so a refused start tells it from one a killed holder
 * left. Undefined when the file's times can't be set (not this user's file).
 */
function stampLock(fd: number): string | undefined {
  try {
    const now = new Date();
    futimesSync(fd, now, now);
    return fstatSync(fd, { bigint: true }).ctimeNs.toString();
  } catch {
    return undefined;
  }
}

/** A pause of `ms` milliseconds, synchronous (acquireServeLock is). */
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * The side file of the lock's current holder, or undefined. The holder writes it a moment
 * after it takes the lock, so a start refused in that moment finds none, or one a killed
 * holder left (its stamp is not the lock file's change time): it reads again a few times,
 * 10 ms apart (50 ms at most), then gives up.
 */
function currentInfo(lockPath: string, infoPath: string): HolderInfo | undefined {
  for (let tries = 0; ; tries++) {
    const info = readInfo(infoPath);
    const changed = statSync(lockPath, { bigint: true, throwIfNoEntry: false })?.ctimeNs.toString();
    if (info && (info.stamp === undefined || info.stamp === changed)) return info;
    if (tries >= 5) return undefined;
    pause(10);
  }
}

/** Holds the write lock of `conn`'s file until it closes; SQLITE_BUSY at once when another connection holds it. */
function takeWriteLock(conn: Database.Database): void {
  // the rollback journal in memory: no `<db>.lock-journal` file (nothing is ever written)
  conn.pragma('journal_mode = MEMORY');
  conn.exec('BEGIN IMMEDIATE');
}

/** A lock file open to others (made under a loose umask by an earlier version, or by hand) narrowed to 0600. */
function chmodOwnerOnly(fd: number): void {
  try {
    fchmodSync(fd, 0o600);
  } catch {
    // not ours to change: the lock works all the same, it holds no data
  }
}
