/**
 * The failed-authentication guard: an address that fails to authenticate more than
 * `limit` times within `windowMs` is refused (429, code 8, `Retry-After`) on every
 * authenticated route for a cool-down that doubles on each repeat offence, as SSH
 * daemons (fail2ban), identity providers and API gateways do. Failures are logged
 * aggregated: one Warning entry per address per window, whose count is kept current,
 * and one Warning when a block starts — never one row per attempt.
 */
import { isBusy } from './busy.js';
import { DAY, HOUR, MINUTE, parseDurationMs, SECOND } from '../time.js';
import { cachedStatement, type Db } from './db.js';
import { renderTemplate, writeLog } from './log-writer.js';

/** `limit` failures allowed per `windowMs` (a block starts at limit + 1); limit 0 turns the guard off. */
export interface AuthFailLimit {
  limit: number;
  windowMs: number;
}

/** The default of `lic serve --auth-fail-limit`: more than 5 failures within 60 s blocks. */
export const DEFAULT_AUTH_FAIL_LIMIT: AuthFailLimit = { limit: 5, windowMs: MINUTE };
/** The first block lasts this long; each repeat offence doubles it, up to MAX_COOLDOWN_MS. */
const BASE_COOLDOWN_MS = MINUTE;
const MAX_COOLDOWN_MS = HOUR;
/** Offences are forgotten once an address has stayed clean this long after its last block. */
const FORGET_AFTER_MS = DAY;
/** How often entries that met another process's lock are tried again, in ms. */
const RETRY_MS = 1000;
/** Addresses tracked at most; the stalest quiet ones go first beyond it. */
const MAX_TRACKED = 50_000;

interface AddressState {
  /** times of the failures within the current window, oldest first */
  failures: number[];
  /** the Warning entry of this address's current window, and when that window began */
  entryId?: number;
  entryWindowStart: number;
  entryCount: number;
  blockedUntil: number;
  offences: number;
  lastSeen: number;
}

/** What a failed authentication was, for its log entry (never the key). */
export interface FailureInfo {
  method: string;
  path: string;
  reason: string;
}

/**
 * Parses `N/DURATION` (`5/60s`, `10/5m`; the window a duration of src/time.ts, a bare
 * number is seconds, 1s..24h; `0` = off) into an AuthFailLimit.
 * Returns undefined for anything else (the caller names its flag in the error).
 */
export function parseAuthFailLimit(text: string): AuthFailLimit | undefined {
  const v = text.trim();
  if (v === '0') return { limit: 0, windowMs: DEFAULT_AUTH_FAIL_LIMIT.windowMs };
  const m = /^(\d{1,6})\/(\S+)$/.exec(v);
  const windowMs = m ? parseDurationMs(m[2]!, { bareSeconds: true }) : undefined;
  if (windowMs === undefined || windowMs < SECOND || windowMs > DAY) return undefined;
  return { limit: Number(m![1]), windowMs: Number(m![1]) === 0 ? DEFAULT_AUTH_FAIL_LIMIT.windowMs : windowMs };
}

/**
 * Builds the guard over the service's log (`db`) and clock (`now`). `blocked(ip)` gives
 * the seconds left of a block (0 when free); `failed(ip, info)` records a failure and
 * returns the seconds of a block it started (0 when none). With limit 0 nothing is
 * blocked, but failures are still logged one entry per address and window. Memory is
 * bounded (MAX_TRACKED addresses).
 */
export function createAuthGuard(db: Db, now: () => Date, o: AuthFailLimit = DEFAULT_AUTH_FAIL_LIMIT) {
  const states = new Map<string, AddressState>();
  const enabled = o.limit > 0;

  const prune = (t: number) => {
    for (const [ip, s] of states) {
      if (s.blockedUntil <= t && t - s.lastSeen > Math.max(o.windowMs, s.offences ? FORGET_AFTER_MS : 0)) states.delete(ip);
    }
    // still too many (a flood of distinct addresses): drop the quietest half
    if (states.size > MAX_TRACKED) {
      const quiet = [...states.entries()].filter(([, s]) => s.blockedUntil <= t).sort((a, b) => a[1].lastSeen - b[1].lastSeen);
      for (const [ip] of quiet.slice(0, quiet.length / 2)) states.delete(ip);
    }
  };

  /** Addresses whose window entry could not be written (the database locked elsewhere), retried by `retry`. */
  const pending = new Map<string, { s: AddressState; info: FailureInfo }>();
  let retryTimer: NodeJS.Timeout | undefined;

  /**
   * Writes the Warning entry of `ip`'s current window as it stands: a new entry when it has
   * none yet, else its count updated in place. While another process holds the database's
   * write lock (busy.ts) the write is skipped, so the 401 still goes out: the count is kept
   * and the entry written by the next failure or by the retry a second later, so no failure
   * goes uncounted (failures during a lock were lost before).
   */
  const writeEntry = (ip: string, s: AddressState, info: FailureInfo): void => {
    const props = { Method: info.method, Path: info.path, Reason: info.reason, RemoteAddress: ip };
    const all = { ...props, Count: s.entryCount, WindowSeconds: Math.round(o.windowMs / 1000) };
    const counted = '{Count} failed authentications from {RemoteAddress} within {WindowSeconds} s; the last for {Method} {Path}: {Reason}';
    try {
      if (s.entryId === undefined) {
        s.entryId =
          s.entryCount === 1
            ? writeLog(db, new Date(s.entryWindowStart), 'Warning', 'Authentication failed for {Method} {Path}: {Reason}', props)
            : writeLog(db, new Date(s.entryWindowStart), 'Warning', counted, all);
      } else {
        cachedStatement(db, 'UPDATE log SET message = ?, message_template = ?, properties = ? WHERE id = ?').run(
          renderTemplate(counted, all),
          counted,
          JSON.stringify(all),
          s.entryId,
        );
      }
      pending.delete(ip);
    } catch (e) {
      if (!isBusy(e)) throw e;
      pending.set(ip, { s, info });
      retryTimer ??= setTimeout(retry, RETRY_MS).unref();
    }
  };

  /** Writes the entries left pending; again a second later while the lock is still held elsewhere. */
  function retry(): void {
    retryTimer = undefined;
    if (!db.open) return;
    for (const [ip, { s, info }] of [...pending]) {
      try {
        writeEntry(ip, s, info);
      } catch {
        pending.delete(ip); // not a lock: nothing a retry would mend
      }
    }
  }

  /** Counts a failure in `ip`'s window (a new window once the last is over) and writes its entry. */
  const logFailure = (ip: string, s: AddressState, t: number, info: FailureInfo) => {
    if (s.entryCount === 0 || t - s.entryWindowStart >= o.windowMs) {
      // the window that ends: its entry written first if it is still pending
      if (pending.has(ip)) {
        try {
          writeEntry(ip, s, pending.get(ip)!.info);
        } catch {
          /* its own error: the new window goes on */
        }
        pending.delete(ip);
      }
      s.entryWindowStart = t;
      s.entryCount = 0;
      s.entryId = undefined;
    }
    s.entryCount++;
    writeEntry(ip, s, info);
  };

  /** Runs a write of the log; while another process holds the write lock the entry is skipped (the block still counts). */
  const tolerant = (write: () => void) => {
    try {
      write();
    } catch (e) {
      if (!isBusy(e)) throw e;
    }
  };

  return {
    enabled,
    /** Seconds left of `ip`'s block (rounded up), 0 when it is not blocked. */
    blocked(ip: string): number {
      if (!enabled) return 0;
      const s = states.get(ip);
      const left = s ? s.blockedUntil - now().getTime() : 0;
      return left > 0 ? Math.ceil(left / 1000) : 0;
    },
    /** Records a failed authentication from `ip`; returns the seconds of the block it started, or 0. */
    failed(ip: string, info: FailureInfo): number {
      const t = now().getTime();
      let s = states.get(ip);
      if (!s) {
        if (states.size >= MAX_TRACKED) prune(t);
        s = { failures: [], entryWindowStart: 0, entryCount: 0, blockedUntil: 0, offences: 0, lastSeen: t };
        states.set(ip, s);
      }
      if (s.offences && t - Math.max(s.lastSeen, s.blockedUntil) > FORGET_AFTER_MS) s.offences = 0;
      s.lastSeen = t;
      logFailure(ip, s, t, info);
      if (!enabled) return 0;
      s.failures.push(t);
      while (s.failures.length && s.failures[0]! <= t - o.windowMs) s.failures.shift();
      if (s.failures.length <= o.limit) return 0;
      s.offences++;
      const cooldown = Math.min(BASE_COOLDOWN_MS * 2 ** (s.offences - 1), MAX_COOLDOWN_MS);
      s.blockedUntil = t + cooldown;
      s.failures = [];
      const seconds = Math.ceil(cooldown / 1000);
      tolerant(() =>
        writeLog(
          db,
          new Date(t),
          'Warning',
          'Blocked {RemoteAddress} for {Seconds} s after {Count} failed authentications within {WindowSeconds} s (offence {Offence})',
          {
            RemoteAddress: ip,
            Seconds: seconds,
            Count: o.limit + 1,
            WindowSeconds: Math.round(o.windowMs / 1000),
            Offence: s.offences,
          },
        ),
      );
      return seconds;
    },
  };
}
