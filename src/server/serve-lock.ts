/**
 * One service per database file (docs/local-service.md, "One service per database"): a
 * lock file `<db>.lock` beside the database, made when the service opens it and removed when
 * it closes, as a database server's pid file. It holds the serving process's id, its start
 * time (Linux: `/proc/<pid>/stat`, so a reused process id is told apart) and, once it
 * listens, its URL. A lock whose process is gone (SIGKILL, a crash, a reboot) is stale: the
 * next start replaces it. Two services on one file would each keep their own view (a key
 * revoked through one would stay cached in the other, and profile "local" would move to
 * whichever started last), so the second is refused, naming the first.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';

/** Another live process serves the database: its id and URL (undefined while it is still starting). */
export class DatabaseInUseError extends Error {
  constructor(
    readonly dbPath: string,
    readonly pid: number,
    readonly url: string | undefined,
    readonly lockPath: string,
  ) {
    super(
      `the database ${dbPath} is already served by lic serve process ${pid}${url ? ` at ${url}` : ' (still starting)'}: use that one, stop it first, or choose another --db (if process ${pid} is not a lic serve, remove ${lockPath})`,
    );
    this.name = 'DatabaseInUseError';
  }
}

/** What the lock file says (one line of JSON). */
interface LockInfo {
  pid: number;
  /** the process's start time in clock ticks since boot (Linux), to tell a reused pid apart */
  started?: string;
  url?: string;
}

/** A lock this process holds: `listening` records the URL in it; `release` removes it (idempotent). */
export interface ServeLock {
  path: string;
  listening(url: string): void;
  release(): void;
}

/** Lock files held by this process (a second service in the same process is refused too). */
const held = new Set<string>();

/** Field 22 of /proc/PID/stat (start time, clock ticks since boot); undefined off Linux or when unreadable. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) is in parentheses and may hold spaces: count from after it
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Whether the process the lock names still runs (and is the same process, where its start time tells). */
function alive(info: LockInfo, path: string): boolean {
  // 0 (an unreadable lock) would signal our own process group, a negative id another group
  if (!Number.isInteger(info.pid) || info.pid <= 0) return false;
  if (info.pid === process.pid) return held.has(path);
  try {
    process.kill(info.pid, 0);
  } catch (e) {
    // EPERM: it runs, as another user
    if ((e as { code?: string }).code !== 'EPERM') return false;
  }
  const now = processStartTime(info.pid);
  return !(info.started !== undefined && now !== undefined && now !== info.started);
}

/** The lock file's content; undefined when it is gone or not ours to read (then it is replaced). */
function readLock(path: string): LockInfo | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const info = JSON.parse(text) as LockInfo;
    return Number.isInteger(info.pid) && info.pid > 0 ? info : { pid: 0 };
  } catch {
    return { pid: 0 };
  }
}

/** Writes `info` to `path` whole: a temporary file first, then linked (`exclusive`: fails with EEXIST) or renamed into place. */
function writeWhole(path: string, info: LockInfo, exclusive: boolean): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, `${JSON.stringify(info)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    if (exclusive) linkSync(tmp, path);
    else renameSync(tmp, path);
  } finally {
    if (exclusive) unlinkSync(tmp);
  }
}

/**
 * Takes `<dbPath>.lock` for this process. Throws DatabaseInUseError when a live process holds
 * it; a stale one (its process gone) is replaced. Called before the database is opened.
 */
export function acquireServeLock(dbPath: string): ServeLock {
  const path = `${dbPath}.lock`;
  const mine: LockInfo = { pid: process.pid, started: processStartTime(process.pid) };
  for (let attempt = 0; ; attempt++) {
    try {
      writeWhole(path, mine, true);
      break;
    } catch (e) {
      if ((e as { code?: string }).code !== 'EEXIST' || attempt >= 3) throw e;
    }
    const other = readLock(path);
    if (other && alive(other, path)) throw new DatabaseInUseError(dbPath, other.pid, other.url, path);
    // stale: its process is gone
    try {
      unlinkSync(path);
    } catch (e) {
      if ((e as { code?: string }).code !== 'ENOENT') throw e;
    }
  }
  held.add(path);
  const ours = () => readLock(path)?.pid === process.pid;
  return {
    path,
    listening(url) {
      if (held.has(path) && ours()) writeWhole(path, { ...mine, url }, false);
    },
    release() {
      if (!held.delete(path)) return;
      try {
        if (ours()) unlinkSync(path);
      } catch {
        // already gone
      }
    },
  };
}
