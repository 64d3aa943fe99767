/** Time units (ms) and the timestamp form of the demo dataset. */

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Ms since the Unix epoch → an RFC 3339 UTC timestamp with ms (`2025-01-18T14:04:02.659Z`), as the dataset stores it. */
export const iso = (ms: number): string => new Date(ms).toISOString();
