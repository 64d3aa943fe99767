/**
 * What every noun's and verb's registration receives. It lives below both the root
 * program (src/cli/program.ts, which imports every command) and the commands, so that
 * no command imports the program: the import graph has no circle.
 */
import type { Command } from 'commander';
import type { Context } from './context.js';
import type { Runtime } from './runtime.js';

/** Gives a verb its Runtime, built from the global flags of the command line it runs in. */
export type RuntimeOf = (cmd: Command) => Runtime;

/**
 * What every `registerX(parent, deps, run?)` receives: the context (for the clock in flag
 * parsers) and `runtimeOf`, which builds a verb's Runtime when its action runs.
 */
export interface CommandDeps {
  ctx: Context;
  runtimeOf: RuntimeOf;
}
