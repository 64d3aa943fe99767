/**
 * Which noun a command line runs, read before any program exists: by src/cli/program.ts (to
 * declare that noun alone) and by bin/lic.js (to load that noun's bundle, dist/cli-NOUN.cjs),
 * which compiles this module as dist/command-line.cjs, built on its own. No imports, so that
 * file is this module alone.
 */

/** How a root flag takes its value: `required` (`--profile NAME`), `optional` (`--json [FIELDS]`) or `none` (`--quiet`). */
export type FlagArity = 'required' | 'optional' | 'none';

/**
 * The noun a command line certainly runs, with the operand right after it (`list` in `lic -q
 * keys list`, which may name one of its verbs): the first operand after root flags
 * (`--profile NAME`, `-o json`, `--quiet`, `--x=y`...; `flags`: each root flag, long and short,
 * with its arity) when `isNoun` says it names a noun that may be declared alone; undefined for
 * anything else (help, a typo, `--`, an unknown flag, or an optional-value flag such as
 * `--json` without `=`, whose value commander decides), when every noun must be declared.
 */
export function nounOfArgv(
  argv: readonly string[],
  flags: Readonly<Record<string, FlagArity>>,
  isNoun: (name: string) => boolean,
): { noun: string; next?: string } | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('-')) return isNoun(a) ? { noun: a, next: argv[i + 1] } : undefined;
    const eq = a.indexOf('=');
    const flag = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    const takes = Object.hasOwn(flags, flag) ? flags[flag] : undefined;
    if (takes === undefined || (takes === 'optional' && flag === a)) return undefined;
    if (takes === 'required' && flag === a) i++;
  }
  return undefined;
}
