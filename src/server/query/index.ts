/** The list query language of contract §5: parse and compile `filter`, `sort`, `select`. */
export * from './types.js';
export {
  MAX_FILTER_DEPTH,
  MAX_QUERY_LENGTH,
  parseFilter,
  type CallNode,
  type CompareNode,
  type CompareOp,
  type FieldNode,
  type FilterNode,
  type LiteralNode,
  type LogicalNode,
  type MethodName,
  type NotNode,
} from './parse.js';
export { compileFilter, compileListQuery, compileSelect, compileSort, parseTimeLiteral, type ParsedListQuery } from './compile.js';
