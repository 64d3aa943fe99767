import { ApiError, AuthError, NetworkError, ProtocolError } from '../client/errors.js';

/** Bad flags or arguments: nothing was sent. Exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A lookup the CLI made (e.g. a list filtered by id) found nothing. Exit code 4. */
export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

/** The user stopped the command (Ctrl-C). Exit code 130. */
export class InterruptedError extends Error {
  constructor(message = 'interrupted') {
    super(message);
    this.name = 'InterruptedError';
  }
}

/** The user answered no to a confirmation: nothing was changed. Exit code 1. */
export class DeclinedError extends Error {
  constructor(message = 'cancelled: nothing was changed') {
    super(message);
    this.name = 'DeclinedError';
  }
}

/**
 * stdout's reader went away (EPIPE after `lic ... | head -1`). main() ends the command
 * quietly with exit 0, as coreutils, git and gh do under `set -o pipefail`.
 */
export class BrokenPipeError extends Error {
  constructor() {
    super('the reading end of the pipe was closed');
    this.name = 'BrokenPipeError';
  }
}

/** Documented, stable exit codes (README "Exit codes"). */
export const ExitCode = {
  OK: 0,
  ERROR: 1,
  USAGE: 2,
  AUTH: 3,
  NOT_FOUND: 4,
  NETWORK: 5,
  INTERRUPTED: 130,
} as const;

/** The one mapping from an error to an exit code (docs/architecture.md). */
export function exitCodeFor(e: unknown): number {
  if (e instanceof UsageError) return ExitCode.USAGE;
  if (e instanceof NotFoundError) return ExitCode.NOT_FOUND;
  if (e instanceof AuthError || isKeyringError(e)) return ExitCode.AUTH;
  if (e instanceof ApiError) {
    if (e.status === 401 || e.status === 403) return ExitCode.AUTH;
    if (e.status === 404) return ExitCode.NOT_FOUND;
    return ExitCode.ERROR;
  }
  if (e instanceof NetworkError) return ExitCode.NETWORK;
  if (e instanceof InterruptedError) return ExitCode.INTERRUPTED;
  if (e instanceof ProtocolError) return ExitCode.ERROR;
  return ExitCode.ERROR;
}

/** One line for stderr: `lic: <what went wrong>`, with the HTTP status for API errors. */
export function messageFor(e: unknown): string {
  if (e instanceof ApiError) {
    return `${e.message} (HTTP ${e.status}${e.code >= 0 ? `, code ${e.code}` : ''}, ${e.method} ${e.path})`;
  }
  if (e instanceof Error) return e.message;
  return String(e);
}

/**
 * A KeyringError of src/config/keyring.ts (or its KeyringUnavailableError): the key can't be
 * had from the keyring. Recognised by name, so this module does not load the keyring's at start.
 */
function isKeyringError(e: unknown): boolean {
  return e instanceof Error && (e.name === 'KeyringError' || e.name === 'KeyringUnavailableError');
}
