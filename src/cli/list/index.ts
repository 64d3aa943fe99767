/**
 * The list machinery shared by every `<noun> list` verb (contract §5): the flags
 * --where, --sort, --fields, --limit, --take, --skip, --all; the filter built from the
 * noun's friendly flags AND --where; paging by key (or by skip under another --sort);
 * output in every format (-o table|json|ndjson|csv|tsv), streamed page by page with
 * stdout backpressure; a progress bar on a terminal stderr.
 *
 * Converting a noun's list verb takes a few lines (keys/list.ts and log/list.ts are the
 * worked examples):
 *
 * 1. Describe the list once, next to the columns:
 *
 *      export const RESOURCE_LIST: ListDef<Resource> = {
 *        what: 'resources', arrayField: 'resources', totalField: 'totalResourcesCount',
 *        columns: RESOURCE_COLUMNS,
 *        fields: ['id', 'name', 'type', ...],   // optional: lets --fields/--sort be checked locally
 *        // columnFields: ['id', 'name', 'dataSize', ...]  // optional: `select` for table/csv/tsv without --fields
 *        // key: 'id' (default) | false (no integer key: --all pages by skip)
 *        // keyOrder: 'desc' for newest-first lists; paged: false for endpoints without list parameters
 *      };
 *
 * 2. Options: `interface ResourcesListOptions extends ListFlags { ...friendly flags }`, and
 *    in the register function replace the --take/--skip options with
 *
 *      addListOptions(parent.command('list')...option(<friendly flags>), RESOURCE_LIST, { sortExample: 'name' })
 *
 * 3. In runX, turn the friendly flags into filter clauses and hand over the endpoint call:
 *
 *      const client = await rt.client();
 *      await runList(rt, {
 *        def: RESOURCE_LIST,
 *        flags: opts,
 *        filters: [opts.type && equalsClause('Type', opts.type)],
 *        fetch: (q) => listResources(client, q),          // path ids/extra params: (q) => listOrders(client, id, q)
 *      });
 *
 * Single page (no --all, --limit within one page) behaves as before: one request with
 * the given take/skip, printed by `rt.out.list`. Every format prints records normalised
 * against the noun's `types` (./normalize.ts: defaults filled, integer strings read),
 * and json the envelope with the array and total always present, unless --raw.
 */
export { allOf, containsClause, equalsClause, filterString } from './filter.js';
export { addListOptions, parseFilterValue, parseFieldList, parseSortItems, sortParam, type ListDef, type ListFlags } from './flags.js';
export { chosenFields, defaultDataFields, fieldOf, intKey, listRecords, pages, planList, runList } from './run.js';
export { fieldNames, fieldTypesOf, normalizeEnvelope, normalizeListBody, normalizeRecord, normalTotal } from './normalize.js';
