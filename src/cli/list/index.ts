/**
 * The list machinery shared by every `<noun> list` verb (contract §5): a noun declares its
 * list once with defineList (./define.ts: endpoint, schema, columns, its own flags and
 * their filter clauses, help), and gets the shared flags --where, --sort, --fields,
 * --limit, --take, --skip, --all (./flags.ts); the filter built from its flags AND
 * --where (./filter.ts); the plan of requests (./page-plan.ts); paging by key or by skip with
 * one page fetched ahead (./pages.ts); output in every format, streamed page by page,
 * with a progress bar on a terminal stderr (./run.ts, ./format.ts); records normalised
 * against the schema's field types unless --raw (./normalize.ts).
 */
export { containsFlag, defineList, equalsFlag, type ListClient } from './define.js';
export { allOf, containsClause, equalsClause, filterString } from './filter.js';
export { addListOptions, parseFieldList, parseSortItems, sortParam, type ListDef, type ListFlags } from './flags.js';
export { fieldOf, intKey, listRecords, pages } from './pages.js';
export { planList } from './page-plan.js';
export { chosenFields, defaultDataFields, runList } from './run.js';
export { normalizeEnvelope, normalizeListBody, normalizeRecord, normalTotal } from './normalize.js';
