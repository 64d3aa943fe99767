/**
 * The root command: global flags, then one registration per noun. Declarations only;
 * every verb parses its flags into an options object and calls its `runX` (docs/architecture.md).
 */
import { Command, Help } from 'commander';
import type { Context } from './context.js';
import type { CommandDeps, RuntimeOf } from './deps.js';
import { nounOfArgv, type FlagArity } from './command-line.js';
import { UsageError } from './errors.js';
import { registerHelpTopics } from './help-topics.js';
import type { RegisterNoun } from './noun.js';
import { proseWidth, wrapText } from './layout.js';
import {
  OUTPUT_FLAGS,
  addOutputOptions,
  checkOutputFlags,
  deferRequiredOptions,
  parseBaseUrl,
  parseDuration,
  parseRetries,
} from './parse.js';
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

/**
 * The nouns and top-level verbs of `lic`, in the order help lists them, by the command name
 * each declares (test/cli/lazy-nouns.test.ts checks that they agree): each loads its module
 * on first call. A dynamic import, so that the bundle initialises a noun's modules (its
 * verbs, their flags' parsers, the schemas they read) only in a run that declares it: `lic
 * keys list` runs none of `log`'s or `state`'s code (bench/startup.md). A noun with verbs
 * loads only the verb given (the operand after the noun, if it names one: src/cli/noun.ts).
 */
export const NOUNS: ReadonlyMap<string, (verb?: string) => Promise<RegisterNoun>> = new Map<
  string,
  (verb?: string) => Promise<RegisterNoun>
>([
  ['profile', async (verb) => (await import('../commands/profile/index.js')).loadProfile(verb)],
  ['keys', async (verb) => (await import('../commands/keys/index.js')).loadKeys(verb)],
  ['log', async (verb) => (await import('../commands/log/index.js')).loadLog(verb)],
  ['resources', async (verb) => (await import('../commands/resources/index.js')).loadResources(verb)],
  ['assemblies', async (verb) => (await import('../commands/assemblies/index.js')).loadAssemblies(verb)],
  ['orders', async (verb) => (await import('../commands/orders/index.js')).loadOrders(verb)],
  ['templates', async (verb) => (await import('../commands/templates/index.js')).loadTemplates(verb)],
  ['products', async (verb) => (await import('../commands/products/index.js')).loadProducts(verb)],
  ['state', async (verb) => (await import('../commands/state/index.js')).loadState(verb)],
  ['diff', async () => (await import('../commands/state/diff.js')).registerDiff],
  ['apply', async () => (await import('../commands/state/apply.js')).registerApply],
  ['serve', async () => (await import('../commands/serve/index.js')).registerServe],
  ['api', async () => (await import('../commands/api/index.js')).registerApi],
  ['doctor', async () => (await import('../commands/doctor/index.js')).registerDoctor],
  ['completion', async () => (await import('../commands/completion/index.js')).registerCompletion],
]);

/**
 * The noun a command line runs, when that is certain from the root's own options: the first
 * operand, after root flags (`--profile NAME`, `-o json`, `--quiet`, `--x=y`...), if it names
 * one of NOUNS but `completion` (which describes them all); undefined for anything else
 * (help, a typo, `--`, an unknown or optional-value flag such as `--json`), when every noun
 * must be declared. `root`: a program with the root's options (rootProgram's).
 */
export function nounOf(argv: readonly string[], root: Command): string | undefined {
  return commandOf(argv, root)?.noun;
}

/** nounOf's noun with the operand right after it (`list` in `lic -q keys list`), which may name one of its verbs (./command-line.ts). */
function commandOf(argv: readonly string[], root: Command): { noun: string; next?: string } | undefined {
  // the table of root flags only when a flag comes first: `lic keys list` needs none
  const flags = argv[0]?.startsWith('-') ? flagArity(root) : {};
  // `completion` writes a script for the whole command tree
  return nounOfArgv(argv, flags, (a) => a !== 'completion' && NOUNS.has(a));
}

/**
 * Each root flag of `root` (long and short) and the output flags, which are the verbs' own but
 * may come first (hoistOutputFlags), with how each takes its value: nounOfArgv's table.
 */
function flagArity(root: Command): Record<string, FlagArity> {
  const arity: Record<string, FlagArity> = Object.fromEntries(OUTPUT_FLAGS);
  for (const o of root.options) {
    for (const flag of [o.long, o.short]) if (flag) arity[flag] = o.required ? 'required' : o.optional ? 'optional' : 'none';
  }
  return arity;
}

/**
 * The root flags' table of nounOfArgv (flagArity of the root program), which scripts/build.mjs
 * writes into dist/version.json (`rootFlags`) for bin/lic.js to find the noun of a command line
 * whose first word is a flag (`lic -o json keys list`) as buildProgram does.
 */
export function rootFlagArity(): Record<string, FlagArity> {
  return flagArity(rootProgram({} as Context));
}

/** Which nouns a program declares (buildProgram, main). */
export interface DeclareOptions {
  /** The registrars to declare instead of NOUNS, every one of them (tests: one verb whose `run` records its options). */
  nouns?: readonly RegisterNoun[];
  /**
   * Declare every noun even when the command line certainly runs one. By default a command line
   * that names one noun (nounOf) gets only that noun loaded and declared, with only the verb it names
   * if it names one (src/cli/noun.ts): loading and declaring
   * all 42 commands and their options costs every start milliseconds (bench/startup.md).
   * test/cli/lazy-nouns.test.ts compares the two.
   */
  allNouns?: boolean;
}

/**
 * Builds a fresh program for one invocation (`argv`: what it will parse, for the one-noun
 * declaration; DeclareOptions), loading the nouns it declares; output goes to the context's
 * streams; every Runtime made is added to `runtimes` so main() can close it.
 */
export async function buildProgram(
  ctx: Context,
  runtimes: Runtime[] = [],
  declare: DeclareOptions = {},
  argv?: readonly string[],
): Promise<Command> {
  const program = rootProgram(ctx);
  if (declare.nouns) return declareNouns(program, ctx, runtimes, declare.nouns, true);
  const only = argv && !declare.allNouns ? commandOf(argv, program) : undefined;
  // a verb is the operand right after its noun; a flag there (`lic keys --help`) means every verb
  const verb = only?.next?.startsWith('-') === false ? only.next : undefined;
  const loaders = only ? [() => NOUNS.get(only.noun)!(verb)] : [...NOUNS.values()];
  // help topics (`lic help filters`) only where one can be asked for: not under a named noun
  return declareNouns(program, ctx, runtimes, await Promise.all(loaders.map((load) => load())), !only);
}

/** The root command of buildProgram: its description, global options, help and output settings; no noun yet. */
function rootProgram(ctx: Context): Command {
  const program = new Command('lic')
    .description('Administer a software-licensing service: API keys, resources, assemblies, log, orders, license templates, products.')
    // `-V, --version` is answered by main() only as the first argument: a root option
    // would be parsed after any verb too, and swallow a verb's own --version
    .addHelpText('after', '\nRun `lic --version` for the version, `lic COMMAND --help` for a command.')
    .option('--profile <name>', 'profile to use (env LIC_PROFILE; default: the default profile)')
    .option('--base-url <url>', 'service URL, overriding the profile (env LIC_BASE_URL)', baseUrlFlag)
    .option('--no-color', 'no color even on a terminal (also NO_COLOR)')
    .option('-v, --verbose', 'trace HTTP requests on stderr (the API key is redacted); success notes also off a terminal')
    .option('-q, --quiet', 'no progress, notes or retry notices on stderr')
    .option(
      '--timeout <duration>',
      'deadline of each request attempt: connect, headers and whole body (env LIC_TIMEOUT; default 30s)',
      parseDuration,
    )
    .option('--retries <n>', 'extra attempts on connection errors, 429, 502, 503, 504 (env LIC_RETRIES; default 2)', parseRetries)
    .option('--ca-file <path>', 'PEM file of extra trusted CA certificates, added to the default ones')
    .option('--insecure-http', 'allow sending the API key over plain http:// to a host that is not loopback')
    .option('--wide', 'terminal tables: every column and cell in full, not fitted to the width')
    .option('--utc', 'terminal tables: times in UTC (2026-11-23 06:44Z), not local time')
    // on by default in commander; kept explicit: `lic kyes` → (did you mean keys?), `--prem` → --perm
    .showSuggestionAfterError()
    // every command's help lists the root flags too, under "Global Options:" (gh's INHERITED FLAGS);
    // the page is wrapped to the terminal (./layout.ts): commander wraps the option and command
    // lists under their descriptions, wrapText whatever it leaves wider (a long term, a paragraph)
    .configureHelp({
      showGlobalOptions: true,
      minWidthToWrap: 20,
      formatHelp: (cmd, helper) => wrapText(Help.prototype.formatHelp.call(helper, cmd, helper), helper.helpWidth ?? 80),
    })
    .exitOverride()
    .configureOutput({
      // help, and the texts addHelpText adds to it (examples, notes), wrapped to the stream's width
      writeOut: (s) => ctx.stdout.write(wrapText(s, proseWidth(ctx.stdout, ctx.env))),
      writeErr: (s) => ctx.stderr.write(wrapText(s, proseWidth(ctx.stderr, ctx.env))),
      getOutHelpWidth: () => proseWidth(ctx.stdout, ctx.env),
      getErrHelpWidth: () => proseWidth(ctx.stderr, ctx.env),
      // a usage error of commander's in lic's one style (README "Scripts and exit codes")
      outputError: (s) => ctx.stderr.write(`lic: ${usageMessage(s)}\n`),
    });

  // `--json` takes an optional field list: a command name or anything else after it is not one;
  // the output flags are the verbs' own, but may come first as users type them (`lic -o json keys list`)
  const parseOptions = program.parseOptions.bind(program);
  program.parseOptions = (args: string[]) => parseOptions(hoistOutputFlags(bareJsonFlag(args, program), program));
  return program;
}

/**
 * `program` (rootProgram's) with `nouns` declared, in that order, and the help topics when
 * `topics`; every Runtime its commands make is added to `runtimes`.
 */
function declareNouns(program: Command, ctx: Context, runtimes: Runtime[], nouns: readonly RegisterNoun[], topics: boolean): Command {
  const runtimeOf: RuntimeOf = (cmd) => {
    const rt = new Runtime(ctx, cmd.optsWithGlobals() as GlobalOptions);
    runtimes.push(rt);
    return rt;
  };
  const deps: CommandDeps = { ctx, runtimeOf };
  for (const register of nouns) register(program, deps);
  if (topics) registerHelpTopics(program, ctx);
  // required options are checked in preAction, after commander's unknown-option check,
  // so `keys create --prem 7` suggests --perm instead of saying --perm is missing
  deferRequiredOptions(program);
  // -o/--json/--raw on the verbs that declared them (outputFormats), after their own flags
  addOutputOptions(program);
  program.hook('preAction', (_root, action) => checkOutputFlags(action));
  return program;
}

/**
 * A commander error message (`error: unknown command 'kyes'\n(Did you mean keys?)\n`) as one
 * line without its `error: ` prefix, the suggestion inside it: `unknown command 'kyes' (did you mean keys?)`.
 */
function usageMessage(s: string): string {
  return s
    .trim()
    .replace(/^error: /, '')
    .replace(/\s*\n\s*\(Did you mean/, ' (did you mean')
    .replace(/\s*\n\s*/g, ' ');
}

const FIELD_LIST = /^[A-Za-z_][A-Za-z0-9_]*(,[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * `args` with each `--json` that is followed by something other than a field list (a
 * command name or alias anywhere in `program`, an id, a path) written `--json=`, so
 * commander's optional value does not swallow it: `lic --json keys list` stays bare,
 * `lic keys list --json id,name` takes the list.
 */
export function bareJsonFlag(args: readonly string[], program: Command): string[] {
  if (!args.includes('--json')) return [...args];
  const names = new Set<string>();
  const walk = (c: Command) => c.commands.forEach((sub) => (names.add(sub.name()), sub.aliases().forEach((a) => names.add(a)), walk(sub)));
  walk(program);
  const out = [...args];
  for (let i = 0; i < out.length - 1; i++) {
    if (out[i] === '--') break;
    if (out[i] !== '--json') continue;
    const next = out[i + 1]!;
    if (!next.startsWith('-') && (!FIELD_LIST.test(next) || names.has(next))) out[i] = '--json=';
  }
  return out;
}

/**
 * `args` with the output flags (OUTPUT_FLAGS: `-o X`, `--output=X`, `--json[=F]`, `--raw`)
 * typed before the verb (`lic -o json keys list`, `lic keys --json list`; after bareJsonFlag)
 * moved to the end (before a `--`), where the verb that declares them (outputFormats) parses
 * them; a verb that does not declare them refuses them as commander refuses any unknown option.
 */
export function hoistOutputFlags(args: readonly string[], root: Command): string[] {
  const rootValue = new Set<string>();
  for (const o of root.options) if (o.required) for (const f of [o.long, o.short]) if (f) rootValue.add(f);
  const moved: string[] = [];
  const rest: string[] = [];
  let cmd = root;
  let i = 0;
  for (; i < args.length && cmd.commands.length > 0; i++) {
    const a = args[i]!;
    if (a === '--') break;
    if (!a.startsWith('-')) {
      // a noun or a verb: go down to it; anything else is the root's to report
      const sub = cmd.commands.find((c) => c.name() === a || c.aliases().includes(a));
      if (!sub) break;
      rest.push(a);
      cmd = sub;
      continue;
    }
    const eq = a.indexOf('=');
    const flag = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a.startsWith('-o') && !a.startsWith('--') ? '-o' : a;
    const takes = OUTPUT_FLAGS.get(flag);
    if (takes === undefined) {
      rest.push(a);
      if (rootValue.has(a) && i + 1 < args.length) rest.push(args[++i]!);
      continue;
    }
    moved.push(a);
    const next = args[i + 1];
    // a value in the next word: `-o json`, and `--json id,name` (bareJsonFlag wrote a bare one `--json=`)
    if (flag === a && next !== undefined && (takes === 'required' || (takes === 'optional' && !next.startsWith('-'))))
      moved.push(args[++i]!);
  }
  if (moved.length === 0) return [...args];
  const tail = args.slice(i);
  const dashes = tail.indexOf('--');
  return dashes < 0 ? [...rest, ...tail, ...moved] : [...rest, ...tail.slice(0, dashes), ...moved, ...tail.slice(dashes)];
}
