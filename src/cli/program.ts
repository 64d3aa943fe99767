/**
 * The root command: global flags, then one registration per noun. Declarations only;
 * every verb parses its flags into an options object and calls its `runX` (STYLE §2).
 */
import { Command, Option } from 'commander';
import { registerApi } from '../commands/api/index.js';
import { registerAssemblies } from '../commands/assemblies/index.js';
import { registerCompletion } from '../commands/completion/index.js';
import { registerKeys } from '../commands/keys/index.js';
import { registerLog } from '../commands/log/index.js';
import { registerOrders } from '../commands/orders/index.js';
import { registerProducts } from '../commands/products/index.js';
import { registerProfile } from '../commands/profile/index.js';
import { registerResources } from '../commands/resources/index.js';
import { registerServe } from '../commands/serve/index.js';
import { registerTemplates } from '../commands/templates/index.js';
import type { Context } from './context.js';
import { UsageError } from './errors.js';
import { OUTPUT_FORMATS } from './output.js';
import { parseBaseUrl } from './parse.js';
import { Runtime, type GlobalOptions } from './runtime.js';

/** `--base-url`: parseBaseUrl, with its UsageError (credentials: the value is never echoed) naming the flag. */
function baseUrlFlag(value: string): string {
  try {
    return parseBaseUrl(value);
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(`--base-url: ${e.message}`);
    throw e;
  }
}

/** Gives a verb its Runtime, built from the global flags of the command line it runs in. */
export type RuntimeOf = (cmd: Command) => Runtime;

/** What every noun's registration receives: the context (for the clock in flag parsers) and the runtime factory. */
export interface Cli {
  ctx: Context;
  runtimeOf: RuntimeOf;
}

/** Builds a fresh program for one invocation; output goes to the context's streams; every Runtime made is added to `runtimes` so main() can close it. */
export function buildProgram(ctx: Context, runtimes: Runtime[] = []): Command {
  const program = new Command('lic')
    .description('Administer a software-licensing service: API keys, resources, assemblies, log, orders, license templates, products.')
    // `-V, --version` is answered by main() only as the first argument: a root option
    // would be parsed after any verb too, and swallow a verb's own --version
    .addHelpText('after', '\nRun `lic --version` for the version, `lic COMMAND --help` for a command.')
    .option('--profile <name>', 'profile to use (env LIC_PROFILE; default: the default profile)')
    .option('--base-url <url>', 'service URL, overriding the profile (env LIC_BASE_URL)', baseUrlFlag)
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS))
    .option('--json', 'same as --output json')
    .option('--no-color', 'no colour even on a terminal (also NO_COLOR)')
    .option('-v, --verbose', 'trace HTTP requests on stderr (the API key is redacted)')
    .option('-q, --quiet', 'no progress or notes on stderr')
    .option('--wide', 'terminal tables: every cell in full, not fitted to the width')
    .option('--utc', 'terminal tables: times in UTC (2026-11-23 06:44Z), not local time')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
    });

  const runtimeOf: RuntimeOf = (cmd) => {
    const rt = new Runtime(ctx, cmd.optsWithGlobals() as GlobalOptions);
    runtimes.push(rt);
    return rt;
  };
  const cli: Cli = { ctx, runtimeOf };
  registerProfile(program, cli);
  registerKeys(program, cli);
  registerLog(program, cli);
  registerResources(program, cli);
  registerAssemblies(program, cli);
  registerOrders(program, cli);
  registerTemplates(program, cli);
  registerProducts(program, cli);
  registerServe(program, cli);
  registerApi(program, cli);
  registerCompletion(program, cli);
  return program;
}
