/**
 * One declaration per list noun: `defineList({...})` takes the endpoint, the record's
 * schema, the columns, the noun's own flags with their filter clauses, and the help, and
 * gives the list definition the machinery runs (ListDef: fields and types derived from the
 * schema), the filter of a set of options, and the `list` verb itself. A noun's
 * `src/commands/<noun>/list.ts` is that declaration (docs/architecture.md, "Adding a
 * record or a list noun").
 */
import { Option, type Command } from 'commander';
import type { ListQuery } from '../../wire.js';
import type { CommandDeps } from '../deps.js';
import type { Column } from '../output.js';
import { outputFormats } from '../parse.js';
import type { Runtime } from '../runtime.js';
import { containsClause, equalsClause } from './filter.js';
import { addListOptions, parseFilterValue, type ListDef, type ListFlags, type ListOptionsHelp } from './flags.js';
import { fieldNames, fieldTypesOf, type FieldTypes } from './normalize.js';
import type { FilterClause } from './page-plan.js';
import { runList } from './run.js';

/** The API client a list's endpoint function takes. */
export type ListClient = Awaited<ReturnType<Runtime['client']>>;

/**
 * One flag of a noun's list verb. `flag` is commander's spelling (`--payment-status <status>`);
 * its camelCase attribute must be the key it is declared under (checked when registered).
 */
interface ListFlagSpec<V> {
  flag: string;
  /** the help line */
  help: string;
  /** the value's parser (InvalidArgumentError: exit 2, commander names the flag); `now` is the clock at parse time */
  parse?: (value: string, now: Date) => V;
  /** commander's mandatory option: missing = usage error naming it */
  required?: boolean;
  /** the attribute name of a flag this one cannot be combined with */
  conflicts?: string;
  /** the filter clause this flag's value (when given) adds; build it with ./filter.ts. Absent: the flag is no filter (a path id). */
  filter?: (value: V, now: Date) => FilterClause;
}

/**
 * A flag that keeps the records whose `field` (the service's name, e.g. `PaymentStatus`) is
 * its value exactly, case-sensitive: `Field = "value"`. An empty value is a usage error (parseFilterValue).
 */
export function equalsFlag(flag: string, field: string, help: string): ListFlagSpec<string> {
  return { flag, help, parse: parseFilterValue, filter: (v) => equalsClause(field, v) };
}

/** A flag that keeps the records whose `field` contains its value (case-sensitive): `Field.Contains("text")`; non-empty. */
export function containsFlag(flag: string, field: string, help: string): ListFlagSpec<string> {
  return { flag, help, parse: parseFilterValue, filter: (v) => containsClause(field, v) };
}

/** The noun's own flags, keyed by their option attribute, in the order `--help` lists them. */
type ListFlagSpecs<O> = { [K in Exclude<keyof O, keyof ListFlags>]-?: ListFlagSpec<NonNullable<O[K]>> };

/** What a noun declares about its list (see defineList). */
export interface ListSpec<R, O extends object> extends Omit<ListDef<R>, 'fields' | 'types' | 'columns'> {
  /** the record's JSON schema (src/schema/): `--fields`, `--sort` and normalisation come from it */
  schema: { readonly properties: object };
  /** the table's columns without --fields, with their width class (`kind`) and `priority` (./table.ts) */
  columns: Column<R>[];
  /** `lic <noun> list --help`'s one line */
  description: string;
  flags: ListFlagSpecs<O>;
  /** --sort/--where examples and the --all note of the shared flags' help */
  help?: ListOptionsHelp;
  /** a paragraph before the examples */
  note?: string;
  /** command lines shown under "Examples:" */
  examples: readonly string[];
  /** checks the options before anything else (UsageError); e.g. a time range */
  check?: (opts: O) => void;
  /** options resolved with the client before the list runs (a lookup a flag needs); default as given */
  resolve?: (opts: O, client: ListClient) => Promise<O>;
  /** one page: the endpoint call with the paging query, the (resolved) options for path ids, and the abort signal */
  fetch: (client: ListClient, query: ListQuery, opts: O, signal?: AbortSignal) => Promise<object>;
}

/** A declared list: the ListDef, the filter of a set of options, the verb. */
export type DefinedList<R, O extends object> = ListDef<R> & {
  readonly fields: readonly string[];
  readonly types: FieldTypes;
  readonly spec: ListSpec<R, O>;
  /** the noun's flags → filter clauses (AND-ed with --where by the machinery) */
  filters(opts: Partial<O>, now: Date): FilterClause[];
  /** adds the noun's own flags to `cmd` (shared with a verb that filters the same way, e.g. an export) */
  addFlags(cmd: Command, deps: CommandDeps): Command;
  /** `lic <noun> list`: check, client, resolve, then runList with the filters and the endpoint */
  run(opts: O, rt: Runtime): Promise<void>;
  /** declares `<noun> list` (alias `ls`) on `parent`; `run` is the seam the flag-parsing tests replace */
  register(parent: Command, deps: CommandDeps, run?: (opts: O, rt: Runtime) => Promise<void>): void;
};

/**
 * Declares a list noun (the shape neonctl and gh give a list: typed fields, one writer):
 * `fields` and `types` come from `spec.schema` (fieldTypesOf), everything else from the
 * spec as given. Throws (a programming error, at registration) when a flag's attribute
 * is not the key it is declared under.
 */
export function defineList<R, O extends object>(spec: ListSpec<R, O>): DefinedList<R, O> {
  const { schema, description, flags, help, note, examples, check, resolve, fetch, ...shape } = spec;
  const types = fieldTypesOf(schema);
  const entries = Object.entries(flags) as [string, ListFlagSpec<unknown>][];
  const list: DefinedList<R, O> = {
    ...shape,
    fields: fieldNames(types),
    types,
    spec,
    filters: (opts, now) =>
      entries.map(([key, f]) => {
        const v = (opts as Record<string, unknown>)[key];
        return f.filter && v !== undefined ? f.filter(v, now) : undefined;
      }),
    addFlags(cmd, deps) {
      for (const [key, f] of entries) {
        const opt = new Option(f.flag, f.help);
        if (f.parse) {
          const parse = f.parse;
          opt.argParser((v: string) => parse(v, deps.ctx.now()));
        }
        if (f.required) opt.makeOptionMandatory();
        if (f.conflicts) opt.conflicts(f.conflicts);
        if (opt.attributeName() !== key) throw new Error(`list flag ${f.flag} is declared as "${key}", not "${opt.attributeName()}"`);
        cmd.addOption(opt);
      }
      return cmd;
    },
    async run(opts, rt) {
      check?.(opts);
      const client = await rt.client();
      const o = resolve ? await resolve(opts, client) : opts;
      await runList(rt, {
        def: list,
        flags: o as ListFlags,
        filters: list.filters(o, rt.ctx.now()),
        fetch: (q, signal, parse) => fetch(parse ? client.withBodyParser(parse) : client, q, o, signal),
      });
    },
    register(parent, deps, run = list.run) {
      const cmd = list.addFlags(
        outputFormats(parent.command('list'), undefined, { fields: true }).alias('ls').description(description),
        deps,
      );
      addListOptions(cmd, list, help)
        .addHelpText('after', `${note ? `\n${note}\n` : ''}\nExamples:\n  ${examples.join('\n  ')}`)
        .action(async (o: O, c: Command) => run(o, deps.runtimeOf(c)));
    },
  };
  return list;
}
