/**
 * Parser of the `filter` language of list endpoints (contract §5): a Dynamic-LINQ-style
 * boolean expression over a record's fields.
 *
 *   expr     := or
 *   or       := and  (("||" | "or")  and)*
 *   and      := cmp  (("&&" | "and") cmp)*
 *   cmp      := unary (cmpOp unary)?          cmpOp: = == != <> < <= > >=
 *   unary    := ("!" | "not") unary | primary
 *   primary  := "(" expr ")" | literal | Field | Field "." Method "(" expr ")"
 *   literal  := "double-quoted string" | -?digits(.digits)? | true | false | null
 *
 * Precedence, tightest first: not > comparison > and > or (as in Dynamic LINQ / C#, so
 * `not Level = "x"` means `(not Level) = "x"` and is a type error; write `not (Level = "x")`).
 * Keywords (and, or, not, true, false, null) and method names are case-insensitive.
 * Comparisons don't chain (`a < b < c` is an error; parenthesise to compare a condition).
 *
 * Why hand-written rather than jsep (the brief's first choice): jsep's AST nodes carry no
 * source positions, yet contract §5 wants every error — including semantic ones found by
 * the compiler, such as an unknown field or a type mismatch — to carry its position; its
 * operator tables are process-global mutable state; its word operators are case-sensitive
 * (every casing of AND/OR/NOT would have to be registered); and it accepts single quotes,
 * arrays, `this`, compound expressions, exponents and the ternary, each needing a hook to
 * reject. For a grammar this small a Pratt parser is fewer lines than that configuration,
 * has no dependency, counts its own nesting depth (no stack overflow on hostile input) and
 * reports exact positions with messages in our wording.
 *
 * Positions are 0-based offsets in UTF-16 code units (JavaScript string indices).
 */
import { LONE_SURROGATE } from '../text.js';
import { QueryError } from './types.js';

/** Longest accepted `filter`/`sort`/`select` text, in UTF-16 code units. */
export const MAX_QUERY_LENGTH = 4096;
/** Deepest accepted nesting of parentheses, `not`s, comparisons and method arguments. */
export const MAX_FILTER_DEPTH = 64;

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';
type MethodName = 'contains' | 'startsWith' | 'endsWith';

/** A field reference as written; resolved against the QueryFields by the compiler. */
export interface FieldNode {
  kind: 'field';
  name: string;
  pos: number;
}
/** A literal: string (escapes decoded), finite number, boolean, or null. */
export interface LiteralNode {
  kind: 'literal';
  value: string | number | boolean | null;
  pos: number;
}
interface NotNode {
  kind: 'not';
  operand: FilterNode;
  pos: number;
}
/** `and`/`or` chains are n-ary (flattened, in source order), so long chains don't nest. */
interface LogicalNode {
  kind: 'and' | 'or';
  operands: FilterNode[];
  pos: number;
}
export interface CompareNode {
  kind: 'compare';
  op: CompareOp;
  left: FilterNode;
  right: FilterNode;
  /** start of the left operand */
  pos: number;
  /** position of the operator */
  opPos: number;
}
export interface CallNode {
  kind: 'call';
  method: MethodName;
  target: FieldNode;
  arg: FilterNode;
  pos: number;
  /** position of the method name */
  methodPos: number;
}
export type FilterNode = FieldNode | LiteralNode | NotNode | LogicalNode | CompareNode | CallNode;

type Punct = '=' | '!=' | '<' | '<=' | '>' | '>=' | '&&' | '||' | '!' | '(' | ')' | '.' | ',';
type Token =
  | { t: 'id'; v: string; lower: string; pos: number }
  | { t: 'str'; v: string; pos: number }
  | { t: 'num'; v: number; pos: number }
  | { t: 'punct'; v: Punct; pos: number }
  | { t: 'eof'; pos: number };

const METHODS: ReadonlyMap<string, MethodName> = new Map([
  ['contains', 'contains'],
  ['startswith', 'startsWith'],
  ['endswith', 'endsWith'],
]);
const COMPARE_OPS: ReadonlyMap<Punct, CompareOp> = new Map([
  ['=', '='],
  ['!=', '!='],
  ['<', '<'],
  ['<=', '<='],
  ['>', '>'],
  ['>=', '>='],
]);
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  "'": "'",
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
};
const HEX4 = /^[0-9A-Fa-f]{4}$/;
/** a character that shows as itself in an error message */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isIdStart = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isIdPart = (c: number): boolean => isIdStart(c) || isDigit(c);
const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;

/** Quotes a piece of user text for an error message, shortened so errors stay one line. */
export function quoteForMessage(text: string, max = 40): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.stringify(cut);
}

/** Builds the QueryError every part of the query language throws: `param: what at position N[; hint]`. */
export function queryError(param: string, pos: number, what: string, hint?: string): QueryError {
  return new QueryError(param, pos, `${param}: ${what} at position ${pos}${hint ? `; ${hint}` : ''}`);
}

function describe(tok: Token): string {
  switch (tok.t) {
    case 'eof':
      return 'the end of the filter';
    case 'id':
      return quoteForMessage(tok.v);
    case 'str':
      return 'a string';
    case 'num':
      return 'a number';
    case 'punct':
      return JSON.stringify(tok.v);
  }
}

class Parser {
  private i = 0;
  private peeked: Token | undefined;
  private depth = 0;

  constructor(private readonly src: string) {}

  private fail(pos: number, what: string, hint?: string): never {
    throw queryError('filter', pos, what, hint);
  }

  private expected(what: string, tok: Token): never {
    if (tok.t === 'eof') this.fail(tok.pos, `expected ${what}`);
    this.fail(tok.pos, `expected ${what} but found ${describe(tok)}`);
  }

  peek(): Token {
    return (this.peeked ??= this.lex());
  }

  private next(): Token {
    const tok = this.peek();
    this.peeked = undefined;
    return tok;
  }

  private lex(): Token {
    const s = this.src;
    let i = this.i;
    while (i < s.length && isSpace(s.charCodeAt(i))) i++;
    const pos = i;
    if (i >= s.length) {
      this.i = i;
      return { t: 'eof', pos };
    }
    const c = s.charCodeAt(i);
    const c2 = s.charCodeAt(i + 1);
    let tok: Token;
    if (isIdStart(c)) {
      let j = i + 1;
      while (j < s.length && isIdPart(s.charCodeAt(j))) j++;
      const v = s.slice(i, j);
      tok = { t: 'id', v, lower: v.toLowerCase(), pos };
      i = j;
    } else if (isDigit(c) || (c === 45 /* - */ && isDigit(c2))) {
      let j = i + 1;
      while (isDigit(s.charCodeAt(j))) j++;
      if (s.charCodeAt(j) === 46 /* . */) {
        j++;
        if (!isDigit(s.charCodeAt(j))) this.fail(j, 'expected a digit after the decimal point');
        while (isDigit(s.charCodeAt(j))) j++;
      }
      const after = s.charCodeAt(j);
      if (isIdPart(after) || after === 46) {
        this.fail(j, 'malformed number', 'numbers are written like 42, -7 or 3.25');
      }
      const v = Number(s.slice(i, j));
      if (!Number.isFinite(v)) this.fail(pos, 'number out of range');
      tok = { t: 'num', v, pos };
      i = j;
    } else if (c === 34 /* " */) {
      const r = this.lexString(pos);
      tok = { t: 'str', v: r.value, pos };
      i = r.end;
    } else if (c === 39 /* ' */) {
      this.fail(pos, 'single quotes are not allowed', 'write strings in "double quotes"');
    } else {
      const two = s.slice(i, i + 2);
      let p: Punct | undefined;
      if (two === '==') p = '=';
      else if (two === '!=' || two === '<>') p = '!=';
      else if (two === '<=' || two === '>=' || two === '&&' || two === '||') p = two;
      if (p !== undefined) {
        i += 2;
      } else {
        const one = s[i];
        if (one === '=' || one === '<' || one === '>' || one === '!' || one === '(' || one === ')' || one === '.' || one === ',') {
          p = one;
          i += 1;
        } else if (one === '&' || one === '|') {
          this.fail(pos, `unexpected character "${one}"`, `write ${one}${one} (or ${one === '&' ? 'and' : 'or'})`);
        } else {
          const cp = s.codePointAt(i) ?? c;
          const ch = String.fromCodePoint(cp);
          const shown = PRINTABLE.test(ch) ? JSON.stringify(ch) : `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
          this.fail(pos, `unexpected character ${shown}`);
        }
      }
      tok = { t: 'punct', v: p, pos };
    }
    this.i = i;
    return tok;
  }

  /** A double-quoted string starting at `start`; backslash escapes as in JSON plus \' . */
  private lexString(start: number): { value: string; end: number } {
    const s = this.src;
    let out = '';
    let j = start + 1;
    let runStart = j;
    for (;;) {
      if (j >= s.length) this.fail(start, 'unterminated string', 'close it with "');
      const c = s.charCodeAt(j);
      if (c === 34) break;
      if (c !== 92 /* \ */) {
        j++;
        continue;
      }
      out += s.slice(runStart, j);
      const e = s[j + 1];
      if (e === undefined) this.fail(start, 'unterminated string', 'close it with "');
      const simple = ESCAPES[e];
      if (simple !== undefined) {
        out += simple;
        j += 2;
      } else if (e === 'u') {
        const hex = s.slice(j + 2, j + 6);
        if (!HEX4.test(hex)) this.fail(j, 'expected 4 hex digits after \\u');
        out += String.fromCharCode(parseInt(hex, 16));
        j += 6;
      } else {
        this.fail(j, `unknown escape "\\${e}"`, 'escapes are \\" \\\\ \\/ \\n \\r \\t \\b \\f \\uXXXX');
      }
      runStart = j;
    }
    out += s.slice(runStart, j);
    if (LONE_SURROGATE.test(out)) this.fail(start, 'string is not valid Unicode (unpaired surrogate)');
    return { value: out, end: j + 1 };
  }

  private enter(pos: number): void {
    if (++this.depth > MAX_FILTER_DEPTH) this.fail(pos, `nested deeper than ${MAX_FILTER_DEPTH} levels`);
  }

  /** Pratt loop. Binding powers: or 1, and 2, comparison 3; `not` operands bind at 4. */
  parseExpr(minBp: number, what: string): FilterNode {
    this.enter(this.peek().pos);
    let left = this.parseUnary(what);
    let compared = false;
    for (;;) {
      const tok = this.peek();
      let bp = 0;
      let logical: 'and' | 'or' | undefined;
      let cmp: CompareOp | undefined;
      if (tok.t === 'punct') {
        if (tok.v === '||') ((bp = 1), (logical = 'or'));
        else if (tok.v === '&&') ((bp = 2), (logical = 'and'));
        else if ((cmp = COMPARE_OPS.get(tok.v)) !== undefined) bp = 3;
      } else if (tok.t === 'id') {
        if (tok.lower === 'or') ((bp = 1), (logical = 'or'));
        else if (tok.lower === 'and') ((bp = 2), (logical = 'and'));
      }
      if (bp === 0 || bp < minBp) break;
      this.next();
      if (cmp !== undefined) {
        if (compared) this.fail(tok.pos, "comparisons can't be chained", 'combine them with and / or');
        const right = this.parseExpr(4, 'a value');
        left = { kind: 'compare', op: cmp, left, right, pos: left.pos, opPos: tok.pos };
        compared = true;
      } else if (logical !== undefined) {
        const right = this.parseExpr(bp + 1, 'a condition');
        if (left.kind === logical) left.operands.push(right);
        else left = { kind: logical, operands: [left, right], pos: left.pos };
        compared = false;
      }
    }
    this.depth--;
    return left;
  }

  private parseUnary(what: string): FilterNode {
    const tok = this.peek();
    if ((tok.t === 'punct' && tok.v === '!') || (tok.t === 'id' && tok.lower === 'not')) {
      this.next();
      const operand = this.parseExpr(4, 'a condition');
      return { kind: 'not', operand, pos: tok.pos };
    }
    return this.parsePrimary(what);
  }

  private parsePrimary(what: string): FilterNode {
    const tok = this.next();
    switch (tok.t) {
      case 'str':
      case 'num':
        return { kind: 'literal', value: tok.v, pos: tok.pos };
      case 'punct':
        if (tok.v === '(') {
          const inner = this.parseExpr(0, 'a condition');
          const close = this.next();
          if (close.t !== 'punct' || close.v !== ')') this.expected('")" or an operator', close);
          return inner;
        }
        return this.expected(what, tok);
      case 'eof':
        return this.expected(what, tok);
      case 'id':
        break;
    }
    switch (tok.lower) {
      case 'true':
        return { kind: 'literal', value: true, pos: tok.pos };
      case 'false':
        return { kind: 'literal', value: false, pos: tok.pos };
      case 'null':
        return { kind: 'literal', value: null, pos: tok.pos };
      case 'and':
      case 'or':
      case 'not':
        return this.expected(what, tok);
    }
    const field: FieldNode = { kind: 'field', name: tok.v, pos: tok.pos };
    const dot = this.peek();
    if (dot.t !== 'punct' || dot.v !== '.') return field;
    this.next();
    const name = this.next();
    const method = name.t === 'id' ? METHODS.get(name.lower) : undefined;
    if (name.t !== 'id' || method === undefined) {
      const found = name.t === 'eof' ? '' : ` but found ${describe(name)}`;
      this.fail(name.pos, `expected a method name${found}`, 'methods are Contains, StartsWith, EndsWith');
    }
    const open = this.next();
    if (open.t !== 'punct' || open.v !== '(') this.expected(`"(" after ${name.v}`, open);
    const arg = this.parseExpr(0, 'a "string" argument');
    const close = this.next();
    if (close.t !== 'punct' || close.v !== ')') {
      if (close.t === 'punct' && close.v === ',') this.fail(close.pos, `${name.v} takes one argument`);
      this.expected('")"', close);
    }
    return { kind: 'call', method, target: field, arg, pos: field.pos, methodPos: name.pos };
  }
}

/**
 * Parses a `filter` value into an AST (contract §5 grammar; see the module comment).
 * Returns undefined for an empty or all-whitespace filter (no condition).
 * Throws QueryError (param 'filter', with position) on syntax errors, on text longer than
 * MAX_QUERY_LENGTH and on nesting deeper than MAX_FILTER_DEPTH. Never throws anything else.
 */
export function parseFilter(text: string): FilterNode | undefined {
  if (text.length > MAX_QUERY_LENGTH) {
    throw queryError('filter', MAX_QUERY_LENGTH, `longer than ${MAX_QUERY_LENGTH} characters`);
  }
  const p = new Parser(text);
  if (p.peek().t === 'eof') return undefined;
  const node = p.parseExpr(0, 'a condition');
  const end = p.peek();
  if (end.t !== 'eof') {
    const what =
      end.t === 'punct' && end.v === ')'
        ? 'unbalanced ")"'
        : `expected and, or, a comparison or the end of the filter but found ${describe(end)}`;
    throw queryError('filter', end.pos, what);
  }
  return node;
}
