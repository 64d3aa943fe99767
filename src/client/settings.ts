/**
 * The client's defaults and fixed rules, in a module that does not load undici: the
 * Runtime reads the defaults for `profile show` without paying for the HTTP stack.
 */

/** Per-attempt deadline when none is configured: 30 s for connect, headers and the whole body. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Extra attempts after the first when none is configured. */
export const DEFAULT_RETRIES = 2;
/** The longest wait between two attempts: the back-off cap and the largest `Retry-After` honoured (10 s). */
export const MAX_WAIT_MS = 10_000;
/** First back-off step; doubles per retry (0.5 s, 1 s, 2 s … capped at MAX_WAIT_MS), then jittered to 50–100 %. */
export const BACKOFF_BASE_MS = 500;
/** Default cap on one reply body: 64 MiB (LIC_MAX_REPLY_BYTES overrides). */
export const DEFAULT_MAX_REPLY_BYTES = 64 * 1024 * 1024;
