import { CommanderError } from 'commander';
import { VERSION, type Context } from './context.js';
import { BrokenPipeError, ExitCode, InterruptedError, exitCodeFor, messageFor } from './errors.js';
import { buildProgram, type DeclareOptions } from './program.js';
import type { Runtime } from './runtime.js';

/**
 * Runs one command line (`argv` without node and script) and returns the exit code.
 * The only place errors become exit codes and stderr lines (docs/architecture.md); no stack trace
 * unless LIC_DEBUG=1. `declare`: which nouns the program declares (DeclareOptions; tests pass one verb).
 */
export async function main(argv: string[], ctx: Context, declare: DeclareOptions = {}): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    ctx.stdout.write(`${VERSION}\n`);
    return ExitCode.OK;
  }
  const runtimes: Runtime[] = [];
  const program = await buildProgram(ctx, runtimes, declare, argv);
  try {
    await program.parseAsync(argv, { from: 'user' });
    // output lost on the way (a full disk) is a failure, however late the stream said so
    await ctx.stdout.finish?.();
    return ExitCode.OK;
  } catch (e) {
    if (e instanceof CommanderError) {
      // help and version print and exit 0; every other commander error is usage (already printed)
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return ExitCode.OK;
      // help shown because no subcommand was given (`lic`, `lic keys`) is a usage error
      if (e.code === 'commander.help') return e.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
      if (e.code === 'commander.executeSubCommandAsync') return ExitCode.ERROR;
      return ExitCode.USAGE;
    }
    // a dry run stopped at its first write (src/client/dry-run.ts): the plan is the output
    if (isDryRunStop(e)) {
      ctx.stdout.write(ctx.stdout.isTTY ? `${JSON.stringify(e.plan, null, 2)}\n` : `${JSON.stringify(e.plan)}\n`);
      return ExitCode.OK;
    }
    // `lic ... | head -1`: the reader has what it wanted; stop quietly, as coreutils/git/gh do
    if (e instanceof BrokenPipeError) return ExitCode.OK;
    // @inquirer prompts throw ExitPromptError on Ctrl-C
    const err = (e as Error)?.name === 'ExitPromptError' ? new InterruptedError() : e;
    ctx.stderr.write(`lic: ${messageFor(err)}\n`);
    if (ctx.env.LIC_DEBUG === '1' && err instanceof Error && err.stack) ctx.stderr.write(`${err.stack}\n`);
    return exitCodeFor(err);
  } finally {
    await Promise.all(runtimes.map((rt) => rt.close()));
  }
}

/** DryRunStop, recognised by name so this module does not load the client (and undici) at start. */
function isDryRunStop(e: unknown): e is { plan: unknown } {
  return e instanceof Error && e.name === 'DryRunStop' && 'plan' in e;
}
