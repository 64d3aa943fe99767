/**
 * A noun whose verbs load on demand: a command line that names one verb (`lic keys list`)
 * loads and declares that verb alone; any other (`lic keys`, `lic keys --help`, a typo)
 * loads them all, so that help and commander's suggestions are what they always were
 * (test/cli/lazy-nouns.test.ts compares the two). Declaring every verb of a noun, with
 * its options and their help, cost `lic keys list` ~1 ms of a ~50 ms start (bench/startup.md).
 */
import type { Command } from 'commander';
import type { CommandDeps } from './deps.js';

/** Declares one verb (its flags, help and action) on its noun's command. */
type RegisterVerb = (noun: Command, deps: CommandDeps) => void;

/** Declares one noun (or a top-level verb) and its verbs on the root program. */
export type RegisterNoun = (program: Command, deps: CommandDeps) => void;

/**
 * One verb of a noun: its name and aliases, exactly as its module declares them (a
 * command line naming neither loads every verb), and its module's registrar, loaded on first call.
 */
export type VerbEntry = readonly [name: string, aliases: readonly string[], load: () => Promise<RegisterVerb>];

/**
 * The registrar of a noun declared by `declare` (its name, description and help text) with
 * the verbs of `verbs` in their order: only the one `verb` names (a name or an alias), or
 * all of them when `verb` is undefined or names none.
 */
export async function nounWithVerbs(
  declare: (program: Command) => Command,
  verbs: readonly VerbEntry[],
  verb?: string,
): Promise<RegisterNoun> {
  const named = verbs.filter(([name, aliases]) => verb !== undefined && (name === verb || aliases.includes(verb)));
  const registrars = await Promise.all((named.length === 1 ? named : verbs).map(([, , load]) => load()));
  return (program, deps) => {
    const noun = declare(program);
    for (const register of registrars) register(noun, deps);
  };
}
