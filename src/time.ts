/**
 * Time on both sides, written once: the units of a duration, parsing and writing a
 * duration (`90s`, `500ms`, `7d`), and the RFC 3339 forms lic and `lic serve` accept.
 * A leaf: the CLI and the service both import it, it imports nothing.
 */

/** Milliseconds in a second, minute, hour, day (24 h: UTC has no daylight saving) and week. */
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const WEEK = 7 * DAY;

/** The one unit table of every duration lic reads: `ms`, `s`, `m` (minutes), `h`, `d`, `w` → milliseconds. */
const UNIT_MS = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: DAY, w: WEEK } as const;

const DURATION_RE = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)?$/;

/**
 * A duration: a number (decimals allowed) and a unit of `ms s m h d w` (`500ms`, `1.5s`,
 * `30m`, `7d`, `2w`) → whole milliseconds (rounded). A number without a unit is seconds
 * when `bareSeconds`, else refused (`--grace 7` must not mean 7 s; `0` too: a caller for
 * which it means something says so).
 * Returns undefined for anything else (and for a number too large to be finite): the
 * caller checks its own range and names its flag and the forms it accepts in the error.
 */
export function parseDurationMs(text: string, o: { bareSeconds?: boolean } = {}): number | undefined {
  const m = DURATION_RE.exec(text.trim());
  if (!m || (m[2] === undefined && !o.bareSeconds)) return undefined;
  const ms = Math.round(Number(m[1]) * UNIT_MS[(m[2] ?? 's') as keyof typeof UNIT_MS]);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * Milliseconds → the duration form parseDurationMs reads back, in the largest unit that
 * divides it exactly: 90_000 → `90s`, 86_400_000 → `1d`, 1500 → `1500ms`, 0 → `0`.
 */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0';
  for (const unit of ['w', 'd', 'h', 'm', 's'] as const) if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  return `${ms}ms`;
}

/**
 * The one pattern of a time lic and the service accept: an RFC 3339 full-date
 * (`2025-01-18`), optionally followed by a full-time — `T`, `t` or a space (RFC 3339
 * §5.6 allows the space), `hh:mm:ss` (seconds required), a fraction of any length
 * (digits past ms are truncated), and a zone `Z`, `z` or `±hh:mm` (required).
 * Range checks (month days, leap years, hour ≤ 23, no leap second 60) are parseRfc3339's.
 */
const RFC3339_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|([+-])(\d{2}):(\d{2})))?$/;

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** The first and last ms RFC 3339 can write in UTC with a four-digit year, years 0001-9999 (contract §2). */
const FIRST_TIME_MS = -62_135_596_800_000; // 0001-01-01T00:00:00.000Z (Date.UTC maps year 1 to 1901)
const LAST_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * A time in RFC3339_RE's forms → ms since the epoch: a date-time (`2025-01-18T14:04:02.659Z`,
 * any offset) or, unless `dateTimeOnly`, a plain date (`2025-01-18`, midnight UTC: the
 * `startDate`/`endDate` parameters and time literals of the query language accept it; a
 * stored timestamp or a table cell does not). Undefined for anything else, including
 * impossible dates (2025-02-30), hour 24, leap seconds, texts over 64 characters and, unless
 * `anyYear`, a time outside years 0001-9999 once its offset is applied
 * (`9999-12-31T23:59:59-23:59` is in year 10000, which RFC 3339 can't write).
 */
export function parseRfc3339(text: string, o: { dateTimeOnly?: boolean; anyYear?: boolean } = {}): number | undefined {
  if (text.length > 64) return undefined;
  const m = RFC3339_RE.exec(text);
  if (!m || (o.dateTimeOnly && m[4] === undefined)) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d); // not Date.UTC: it maps years 0..99 to 1900..1999
  if (m[4] === undefined) return o.anyYear || y >= 1 ? date.getTime() : undefined;
  const h = Number(m[4]);
  const mi = Number(m[5]);
  const s = Number(m[6]);
  if (h > 23 || mi > 59 || s > 59) return undefined;
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  let offset = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om) * MINUTE;
  }
  date.setUTCHours(h, mi, s, ms);
  const t = date.getTime() - offset;
  return o.anyYear || (t >= FIRST_TIME_MS && t <= LAST_TIME_MS) ? t : undefined;
}

/** Ms since the Unix epoch → RFC 3339 UTC with ms and `Z` (`2025-01-18T14:04:02.659Z`), as the service writes every timestamp. */
export const iso = (ms: number): string => new Date(ms).toISOString();
