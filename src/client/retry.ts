/**
 * The retry rules and back-off, apart from the request itself (as octokit's retry plugin is
 * apart from its request function): which outcomes are retried, how long to wait, and the
 * loop that announces and waits.
 *
 * Retries are our own loop, not undici's RetryAgent/RetryHandler: that handler's timeouts
 * are per dispatch, so a deadline covering one whole attempt (connect + headers + body)
 * would abort the whole chain instead of one attempt; on the last retryable status it
 * throws RequestRetryError and the service's error body (its message) is lost; it resumes
 * broken GET bodies with Range requests the API does not promise; and it sleeps with its
 * own setTimeout, so tests can't inject the wait.
 */
import { NetworkError, RequestAbortedError } from './errors.js';
import { NETWORK_NOTICE } from './network-errors.js';
import type { Reply } from './reply.js';
import { BACKOFF_BASE_MS, MAX_WAIT_MS } from './settings.js';

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
/** Methods whose repetition is harmless (RFC 9110 §9.2.2 idempotent, and our PUTs are full field sets). */
const REPEATABLE_METHODS = new Set(['GET', 'HEAD', 'PUT']);

/**
 * `Retry-After` (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) → seconds from `nowMs`,
 * never negative; undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  if (!Number.isFinite(at) || !/[A-Za-z]/.test(v)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/**
 * Whether an attempt may be repeated: on connection errors and 429/502/503/504, GET and PUT
 * always, POST and DELETE only when the connection was refused (the request provably never
 * reached the service). A 401, a TLS failure and a refused tunnel are never retried.
 */
function mayRetry(method: string, outcome: Reply | NetworkError): boolean {
  if (outcome instanceof NetworkError) {
    if (outcome.kind === 'tls' || outcome.kind === 'proxy') return false;
    return REPEATABLE_METHODS.has(method) || outcome.kind === 'refused';
  }
  return RETRYABLE_STATUS.has(outcome.status) && REPEATABLE_METHODS.has(method);
}

/** What the retry loop needs from its client (the ClientOptions of the same names). */
interface RetryPolicy {
  /** extra attempts after the first */
  retries: number;
  notice?: (line: string) => void;
  trace?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
}

/**
 * ms to wait before retry `attempt + 1`: the `Retry-After` asked for, else BACKOFF_BASE_MS
 * doubling per attempt, capped at MAX_WAIT_MS, jittered to 50–100 %; undefined when the
 * service asked for longer than MAX_WAIT_MS (the reply then fails at once).
 */
function waitFor(p: RetryPolicy, attempt: number, retryAfter?: string): number | undefined {
  const asked = parseRetryAfter(retryAfter, (p.now ?? Date.now)());
  if (asked !== undefined) return asked * 1000 > MAX_WAIT_MS ? undefined : asked * 1000;
  const step = Math.min(MAX_WAIT_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return Math.round(step * (0.5 + 0.5 * (p.random ?? Math.random)()));
}

/** The request `withRetries` repeats, and how (see withRetries). */
export interface RetryOptions {
  /** the request's method: which outcomes may be retried (mayRetry) */
  method: string;
  /** the request's full URL: its origin is named in each notice */
  url: string;
  /** the request's path: named in RequestAbortedError */
  path: string;
  /** attempts, notice and trace lines, and the injectable sleep (ms), random and clock (ms since epoch) */
  policy: RetryPolicy;
  /** true once the client was closed (the command is ending): a network failure or a wait then stops the loop */
  cutOff: () => boolean;
  /** the caller's abort signal, checked before each attempt */
  signal?: AbortSignal;
}

/**
 * Runs `attempt` until it gives a reply that is not retried (see mayRetry), announcing each
 * retry through `o.policy.notice` (`503 from http://h, retry 1/2 in 0.8s`) and waiting (ms)
 * through `o.policy.sleep`. Returns the last reply (any status); throws the last NetworkError,
 * or RequestAbortedError when `o.signal` aborts before an attempt or `o.cutOff()` turns true
 * (the client was closed) after a network failure or a wait.
 */
export async function withRetries(attempt: () => Promise<Reply>, o: RetryOptions): Promise<Reply> {
  const { method, url, path, policy: p, cutOff, signal } = o;
  for (let n = 0; ; n++) {
    if (signal?.aborted) throw new RequestAbortedError(method, path);
    let outcome: Reply | NetworkError;
    try {
      outcome = await attempt();
    } catch (e) {
      if (!(e instanceof NetworkError)) throw e;
      outcome = e;
    }
    // cut off by our own close() (the command is ending): give up quietly
    if (outcome instanceof NetworkError && cutOff()) throw new RequestAbortedError(method, path);
    if (n < p.retries && mayRetry(method, outcome)) {
      const ms = waitFor(p, n, outcome instanceof NetworkError ? undefined : outcome.retryAfter);
      if (ms !== undefined) {
        const origin = new URL(url).origin;
        const what = outcome instanceof NetworkError ? `${NETWORK_NOTICE[outcome.kind]} ${origin}` : `${outcome.status} from ${origin}`;
        p.notice?.(`${what}, retry ${n + 1}/${p.retries} in ${(ms / 1000).toFixed(1)}s`);
        p.trace?.(`* retrying in ${ms} ms`);
        await (p.sleep ?? ((t) => new Promise((r) => setTimeout(r, t))))(ms);
        if (cutOff()) throw new RequestAbortedError(method, path);
        continue;
      }
    }
    if (outcome instanceof NetworkError) throw outcome;
    return outcome;
  }
}
