/** Settling a pending request early on Ctrl-C, for the commands that page or poll. */

/** The rejection of `unlessAborted` when the signal fired first. */
export const ABORTED: unique symbol = Symbol('aborted');

/**
 * `p`, or a rejection with ABORTED as soon as `signal` aborts, so Ctrl-C never waits for
 * a slow reply (the request itself is left to finish or time out; the command is ending).
 */
export function unlessAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => {});
    return Promise.reject(ABORTED);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      p.catch(() => {});
      reject(ABORTED);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}
