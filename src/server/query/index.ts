/** The list query language of contract §5: parse and compile `filter`, `sort`, `select`. */
export * from './types.js';
export { parseFilter, type CompareOp, type FilterNode } from './parse.js';
export { compileListQuery, type ParsedListQuery } from './compile.js';
