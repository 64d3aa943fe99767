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

/** A noun's own text: its command name, the description its help and the root's list show, the text after its help (examples). */
interface NounText {
  name: string;
  description: string;
  after: string;
}

/**
 * One verb of a noun: its name and aliases, exactly as its module declares them (a
 * command line naming neither loads every verb), and its module's registrar, loaded on first call.
 */
type VerbEntry = readonly [name: string, aliases: readonly string[], load: () => Promise<RegisterVerb>];

/**
 * A noun (`text`) with `verbs` in help's order, as the function NOUNS (src/cli/program.ts)
 * calls with the verb its command line names, if any: it loads that verb's module only (a
 * name or an alias), or every verb's when `verb` is undefined or names none, and gives the
 * noun's registrar.
 */
export function defineNoun(text: NounText, verbs: readonly VerbEntry[]): (verb?: string) => Promise<RegisterNoun> {
  return async (verb) => {
    const named = verbs.filter(([name, aliases]) => verb !== undefined && (name === verb || aliases.includes(verb)));
    const registrars = await Promise.all((named.length === 1 ? named : verbs).map(([, , load]) => load()));
    return (program, deps) => {
      const noun = program.command(text.name).description(text.description).addHelpText('after', text.after);
      for (const register of registrars) register(noun, deps);
    };
  };
}
