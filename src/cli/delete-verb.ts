/**
 * The one `delete` verb every noun with a DELETE endpoint declares:
 * `<noun> delete <id> [--yes] [--dry-run]` (alias `rm`), a confirmation naming the record,
 * then the call, then `rt.out.done` (the reply with `-o json`, else `Deleted <what> <id>.`).
 * Only the record's name, the endpoint and the help examples differ between nouns.
 */
import type { Command } from 'commander';
import type { CommandDeps } from './deps.js';
import { DRY_RUN_HELP } from './dry-run-option.js';
import { outputFormats, parseId } from './parse.js';
import type { Runtime } from './runtime.js';

/** What `delete` takes from the command line. */
interface DeleteOptions {
  /** the record to delete (an int32 id, 1..2147483647) */
  id: number;
  /** skip the confirmation (required off a terminal) */
  yes?: boolean;
}

/** One noun's delete: what it is called, how it is deleted, its help examples. */
export interface DeleteVerb {
  /** the record as a message names it, lower case but for proper terms: `API key`, `resource` */
  what: string;
  /** `a` or `an`, for the description (`Delete an assembly`) */
  article: 'a' | 'an';
  /** the endpoint: DELETE of record `id`; returns the service's reply */
  remove: (client: Awaited<ReturnType<Runtime['client']>>, id: number) => Promise<unknown>;
  /** full command lines shown under "Examples:" in `--help` (each runs through the parser in a test) */
  examples: readonly string[];
}

/** Confirms (`rt.confirm`: asks on a terminal, else needs --yes), deletes, then reports through `rt.out.done`. */
async function runDelete(verb: DeleteVerb, opts: DeleteOptions, rt: Runtime): Promise<void> {
  await rt.confirm(`delete ${verb.what} ${opts.id}`, opts.yes);
  const client = await rt.client();
  const body = await verb.remove(client, opts.id);
  rt.out.done(body, `Deleted ${verb.what} ${opts.id}.`);
}

/** A noun's `registerXDelete(parent, deps, run?)`: the seam `run` (tests pass one that records the options) defaults to runDelete. */
export type RegisterDelete = (parent: Command, deps: CommandDeps, run?: (opts: DeleteOptions, rt: Runtime) => Promise<void>) => void;

/** Declares `delete <id> [--yes] [--dry-run]` (alias `rm`) for `verb`: returns the noun's register function. */
export function defineDelete(verb: DeleteVerb): RegisterDelete {
  return (parent, deps, run = (opts, rt) => runDelete(verb, opts, rt)) => {
    // the one-line note, or the service's reply with -o json (Renderer.done)
    outputFormats(parent.command('delete'), ['table', 'json'])
      .alias('rm')
      .description(`Delete ${verb.article} ${verb.what} (asks first; --yes off a terminal)`)
      .argument('<id>', `${verb.what} id`, parseId)
      .option('-y, --yes', 'do not ask for confirmation')
      .option('--dry-run', DRY_RUN_HELP)
      .addHelpText('after', `\nExamples:\n${verb.examples.map((e) => `  ${e}`).join('\n')}`)
      .action(async (id: number, o: { yes?: boolean }, cmd: Command) => run({ id, yes: o.yes }, deps.runtimeOf(cmd)));
  };
}
