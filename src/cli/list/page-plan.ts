/**
 * How a list's pages will be asked for (planList): one request, or page after page by key
 * or by skip. Pure, so the decision is unit-tested.
 */
import { TAKE_MAX, type ListQuery } from '../../wire.js';
import { UsageError } from '../errors.js';
import { allOf } from './filter.js';
import { sortParam, type ListDef, type ListFlags } from './flags.js';

/**
 * One list endpoint call with the list query (contract §5); the noun adds its fixed
 * parameters (path ids, dates) and passes `signal` to the request (RequestOptions.signal),
 * which aborts a page fetched ahead that is no longer wanted; `parse`, when given, reads
 * the reply's body instead of JSON.parse (RequestOptions.parse: the page scanner of
 * ./page-text.ts). A fetch that ignores `parse` only loses the pass-through.
 */
export type FetchPage = (query: ListQuery, signal?: AbortSignal, parse?: (text: string) => unknown) => Promise<object>;

/** A filter clause of a noun's flag, or nothing (falsy clauses are left out of the AND). */
export type FilterClause = string | undefined | false | null;
/** How the pages will be asked for; pure, so the decision is unit-tested (planList). */
export interface ListPlan {
  /** one request, printed as before (the body unchanged for json) */
  single: boolean;
  /** the user's filter (friendly flags AND --where), without the paging clause */
  filter?: string;
  sort?: string;
  select?: string;
  /** page size */
  take?: number;
  /** the user's --skip */
  skip?: number;
  /** records wanted in all (Infinity for --all) */
  wanted: number;
  /** paging by key: each page asks for `key > last` (or `<` when desc) */
  keyset?: { key: string; desc: boolean };
  /** the key was added to `select` only for paging, so it is removed from the records again */
  stripKey?: boolean;
  /**
   * paging by skip: the noun's key, selected (stripKey) so that a repeated page can be
   * told from a page of records that merely look alike under --fields
   */
  skipKey?: string;
}

/**
 * Decides how to fetch (contract §5): a single request unless `--all` or a `--limit`
 * larger than a page; then by key when there is no --sort or it sorts by the key only
 * (`keyOrder` of the noun without --sort), else by skip. `select` is `--fields`, else
 * `columnFields` when given (the fields the default columns need). Throws UsageError
 * for combinations that cannot work (`--take 0` with several pages).
 */
export function planList<R>(
  def: ListDef<R>,
  flags: ListFlags,
  filters: readonly FilterClause[] = [],
  columnFields?: readonly string[],
): ListPlan {
  const filter = allOf([...filters, flags.where]);
  const selected = flags.fields?.length ? flags.fields : columnFields;
  const select = selected?.join(', ');
  const sortItems = flags.sort ?? [];
  const many = flags.all === true || (flags.limit !== undefined && flags.limit > (flags.take ?? TAKE_MAX));
  if (!many) {
    return {
      single: true,
      filter,
      sort: sortItems.length ? sortParam(sortItems) : undefined,
      select,
      take: flags.limit !== undefined ? Math.min(flags.limit, flags.take ?? flags.limit) : flags.take,
      skip: flags.skip,
      wanted: flags.limit ?? Infinity,
    };
  }
  if (flags.take === 0)
    throw new UsageError(`--take 0 asks for no records per page; drop it or give 1..${TAKE_MAX} with ${flags.all ? '--all' : '--limit'}`);
  const take = flags.take ?? TAKE_MAX;
  const wanted = flags.limit ?? Infinity;
  const key = def.key === false ? undefined : (def.key ?? 'id');
  const byKeyOnly =
    key !== undefined && (sortItems.length === 0 || (sortItems.length === 1 && sortItems[0]!.field.toLowerCase() === key.toLowerCase()));
  if (!byKeyOnly) {
    const keyed = key !== undefined && selected !== undefined && !selected.some((f) => f.toLowerCase() === key.toLowerCase());
    return {
      single: false,
      filter,
      sort: sortItems.length ? sortParam(sortItems) : undefined,
      select: keyed ? `${select}, ${key}` : select,
      take,
      skip: flags.skip,
      wanted,
      skipKey: key,
      stripKey: keyed,
    };
  }
  const desc = sortItems.length ? sortItems[0]!.desc : def.keyOrder === 'desc';
  const keyName = sortItems[0]?.field ?? key!;
  const hasKey = selected?.some((f) => f.toLowerCase() === keyName.toLowerCase()) ?? true;
  return {
    single: false,
    filter,
    sort: `${keyName} ${desc ? 'desc' : 'asc'}`,
    select: hasKey ? select : `${select}, ${keyName}`,
    take,
    skip: flags.skip,
    wanted,
    keyset: { key: keyName, desc },
    stripKey: !hasKey,
  };
}
