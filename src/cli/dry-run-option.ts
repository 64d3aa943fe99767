/**
 * `--dry-run` on the write verbs. The mechanism is src/client/dry-run.ts (the client
 * wrapper Runtime installs when the verb's `dryRun` option is set); this declares the flag.
 */
import type { Command } from 'commander';

/** Help of `--dry-run`, the same on every write verb. */
export const DRY_RUN_HELP =
  'print the request as JSON ({method, url, headers, body}; key and passwords redacted) instead of sending it; validates as the real run, needs no --yes, still needs an API key';

/** Adds `--dry-run` to a write verb; Runtime reads it through optsWithGlobals (GlobalOptions.dryRun). */
export function addDryRunOption(cmd: Command): Command {
  return cmd.option('--dry-run', DRY_RUN_HELP);
}
