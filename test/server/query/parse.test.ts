import { describe, expect, it } from 'vitest';
import { MAX_FILTER_DEPTH, MAX_QUERY_LENGTH, parseFilter, type FilterNode } from '../../../src/server/query/parse.js';
import { QueryError } from '../../../src/server/query/types.js';

/** Compact s-expression of an AST, for asserting structure and precedence. */
function sx(n: FilterNode): string {
  switch (n.kind) {
    case 'field':
      return n.name;
    case 'literal':
      return typeof n.value === 'string' ? JSON.stringify(n.value) : String(n.value);
    case 'not':
      return `(not ${sx(n.operand)})`;
    case 'and':
    case 'or':
      return `(${n.kind} ${n.operands.map(sx).join(' ')})`;
    case 'compare':
      return `(${n.op} ${sx(n.left)} ${sx(n.right)})`;
    case 'call':
      return `(${n.method} ${n.target.name} ${sx(n.arg)})`;
  }
}

const p = (text: string): string => {
  const ast = parseFilter(text);
  return ast ? sx(ast) : '<none>';
};

/** Runs parseFilter expecting a QueryError; returns it. */
function err(text: string): QueryError {
  try {
    parseFilter(text);
  } catch (e) {
    expect(e).toBeInstanceOf(QueryError);
    return e as QueryError;
  }
  throw new Error(`expected a QueryError for ${JSON.stringify(text)}`);
}

describe('parseFilter: operators', () => {
  it.each([
    ['a = 1', '(= a 1)'],
    ['a == 1', '(= a 1)'],
    ['a != 1', '(!= a 1)'],
    ['a <> 1', '(!= a 1)'],
    ['a < 1', '(< a 1)'],
    ['a <= 1', '(<= a 1)'],
    ['a > 1', '(> a 1)'],
    ['a >= 1', '(>= a 1)'],
    ['a=1', '(= a 1)'],
    ['a<>1', '(!= a 1)'],
    ['a>=-1', '(>= a -1)'],
    ['a && b', '(and a b)'],
    ['a || b', '(or a b)'],
    ['a and b', '(and a b)'],
    ['a AND b', '(and a b)'],
    ['a aNd b', '(and a b)'],
    ['a or b', '(or a b)'],
    ['a OR b', '(or a b)'],
    ['!a', '(not a)'],
    ['not a', '(not a)'],
    ['NOT a', '(not a)'],
    ['Not(a)', '(not a)'],
    ['!!a', '(not (not a))'],
    ['not not a', '(not (not a))'],
    ['(a)', 'a'],
    ['((a = 1))', '(= a 1)'],
  ])('%s', (text, want) => {
    expect(p(text)).toBe(want);
  });
});

describe('parseFilter: precedence (not > comparison > and > or)', () => {
  it.each([
    ['a or b and c', '(or a (and b c))'],
    ['a and b or c', '(or (and a b) c)'],
    ['a or b or c', '(or a b c)'],
    ['a and b and c', '(and a b c)'],
    ['(a or b) and c', '(and (or a b) c)'],
    ['a || b && c || d', '(or a (and b c) d)'],
    ['not a = b', '(= (not a) b)'],
    ['!a = b', '(= (not a) b)'],
    ['not (a = b)', '(not (= a b))'],
    ['not a and b', '(and (not a) b)'],
    ['not a or b', '(or (not a) b)'],
    ['a = 1 and b = 2 or c = 3', '(or (and (= a 1) (= b 2)) (= c 3))'],
    ['a = 1 or b = 2 and c = 3', '(or (= a 1) (and (= b 2) (= c 3)))'],
    ['a = not b', '(= a (not b))'],
    ['(a = 1) = (b = 2)', '(= (= a 1) (= b 2))'],
    ['(a or b) or (c or d)', '(or a b (or c d))'],
  ])('%s', (text, want) => {
    expect(p(text)).toBe(want);
  });

  it('andor/orand/notx are identifiers, not keywords', () => {
    expect(p('andor = 1')).toBe('(= andor 1)');
    expect(p('notx')).toBe('notx');
    expect(p('orx and nota')).toBe('(and orx nota)');
  });
});

describe('parseFilter: literals', () => {
  it.each([
    ['a = 0', '(= a 0)'],
    ['a = 42', '(= a 42)'],
    ['a = -7', '(= a -7)'],
    ['a = 3.25', '(= a 3.25)'],
    ['a = -0.5', '(= a -0.5)'],
    ['a = 007', '(= a 7)'],
    ['a = true', '(= a true)'],
    ['a = FALSE', '(= a false)'],
    ['a = True', '(= a true)'],
    ['a = null', '(= a null)'],
    ['a = NULL', '(= a null)'],
    ['a = ""', '(= a "")'],
    ['a = "x y"', '(= a "x y")'],
    ['a = "héllo 😀"', '(= a "héllo 😀")'],
    ['true', 'true'],
  ])('%s', (text, want) => {
    expect(p(text)).toBe(want);
  });

  it('decodes backslash escapes', () => {
    const lit = (text: string): unknown => {
      const n = parseFilter(`a = ${text}`);
      return n?.kind === 'compare' && n.right.kind === 'literal' ? n.right.value : undefined;
    };
    expect(lit(String.raw`"say \"hi\""`)).toBe('say "hi"');
    expect(lit(String.raw`"back\\slash"`)).toBe('back\\slash');
    expect(lit(String.raw`"a\/b"`)).toBe('a/b');
    expect(lit(String.raw`"it\'s"`)).toBe("it's");
    expect(lit(String.raw`"\n\r\t\b\f"`)).toBe('\n\r\t\b\f');
    expect(lit(String.raw`"\u00e9\u0000"`)).toBe('é\u0000');
    expect(lit(String.raw`"\uD83D\uDE00"`)).toBe('😀');
    expect(lit(String.raw`"\\"`)).toBe('\\');
    expect(lit('"raw\nnewline"')).toBe('raw\nnewline');
    expect(lit(String.raw`"x\\" `)).toBe('x\\');
  });

  it('keeps large and precise numbers as JS numbers', () => {
    const n = parseFilter('a = 2147483648');
    expect(n?.kind === 'compare' && n.right.kind === 'literal' && n.right.value).toBe(2147483648);
    const d = parseFilter('a = 0.30000000000000004');
    expect(d?.kind === 'compare' && d.right.kind === 'literal' && d.right.value).toBe(0.30000000000000004);
  });
});

describe('parseFilter: methods', () => {
  it.each([
    ['Name.Contains("x")', '(contains Name "x")'],
    ['name.contains("x")', '(contains name "x")'],
    ['Name.CONTAINS("x")', '(contains Name "x")'],
    ['Name.StartsWith("x")', '(startsWith Name "x")'],
    ['Name.startswith("x")', '(startsWith Name "x")'],
    ['Name.EndsWith("x")', '(endsWith Name "x")'],
    ['Name . EndsWith ( "x" )', '(endsWith Name "x")'],
    ['!Name.Contains("x")', '(not (contains Name "x"))'],
    ['Name.Contains("x") = false', '(= (contains Name "x") false)'],
    ['a.contains("x") or b.endsWith("y") and c', '(or (contains a "x") (and (endsWith b "y") c))'],
  ])('%s', (text, want) => {
    expect(p(text)).toBe(want);
  });

  it('records positions of nodes', () => {
    const n = parseFilter('  Name.Contains("x")');
    expect(n).toMatchObject({ kind: 'call', pos: 2, methodPos: 7, arg: { pos: 16 } });
    const c = parseFilter('a  >=  "x"');
    expect(c).toMatchObject({ kind: 'compare', pos: 0, opPos: 3, right: { pos: 7 } });
  });
});

describe('parseFilter: empty input', () => {
  it.each(['', '   ', '\t\n\r '])('%j means no filter', (text) => {
    expect(parseFilter(text)).toBeUndefined();
  });
});

describe('parseFilter: errors carry position and what was expected', () => {
  it.each([
    ['Level =', 7, 'filter: expected a value at position 7'],
    ['Level = ', 8, 'filter: expected a value at position 8'],
    ['Level = )', 8, 'filter: expected a value but found ")" at position 8'],
    ['', -1, ''],
    ['a and', 5, 'filter: expected a condition at position 5'],
    ['a or or b', 5, 'filter: expected a condition but found "or" at position 5'],
    ['not', 3, 'filter: expected a condition at position 3'],
    ['()', 1, 'filter: expected a condition but found ")" at position 1'],
    [')', 0, 'filter: expected a condition but found ")" at position 0'],
    ['(a = 1', 6, 'filter: expected ")" or an operator at position 6'],
    ['a = 1)', 5, 'filter: unbalanced ")" at position 5'],
    ['a = 1 b', 6, 'filter: expected and, or, a comparison or the end of the filter but found "b" at position 6'],
    ['a = 1 2', 6, 'filter: expected and, or, a comparison or the end of the filter but found a number at position 6'],
    ["a = 'x'", 4, `filter: single quotes are not allowed at position 4; write strings in "double quotes"`],
    ['a = "x', 4, 'filter: unterminated string at position 4; close it with "'],
    ['a = "x\\', 4, 'filter: unterminated string at position 4; close it with "'],
    ['a = "x\\q"', 6, String.raw`filter: unknown escape "\q" at position 6; escapes are \" \\ \/ \n \r \t \b \f \uXXXX`],
    ['a = "\\u12"', 5, 'filter: expected 4 hex digits after \\u at position 5'],
    ['a = "\\uD800"', 4, 'filter: string is not valid Unicode (unpaired surrogate) at position 4'],
    ['a = 1.', 6, 'filter: expected a digit after the decimal point at position 6'],
    ['a = .5', 4, 'filter: expected a value but found "." at position 4'],
    ['a = 1e5', 5, 'filter: malformed number at position 5; numbers are written like 42, -7 or 3.25'],
    ['a = 1.2.3', 7, 'filter: malformed number at position 7; numbers are written like 42, -7 or 3.25'],
    ['a = 1' + '0'.repeat(400), 4, 'filter: number out of range at position 4'],
    ['a + 1', 2, 'filter: unexpected character "+" at position 2'],
    ['a = -b', 4, 'filter: unexpected character "-" at position 4'],
    ['a & b', 2, 'filter: unexpected character "&" at position 2; write && (or and)'],
    ['a | b', 2, 'filter: unexpected character "|" at position 2; write || (or or)'],
    ['a = [1]', 4, 'filter: unexpected character "[" at position 4'],
    ['a ? b : c', 2, 'filter: unexpected character "?" at position 2'],
    ['a = 1; drop', 5, 'filter: unexpected character ";" at position 5'],
    ['é = 1', 0, 'filter: unexpected character "é" at position 0'],
    ['a = 😀', 4, 'filter: unexpected character "😀" at position 4'],
    ['a = 1 = 2', 6, "filter: comparisons can't be chained at position 6; combine them with and / or"],
    ['1 < a < 5', 6, "filter: comparisons can't be chained at position 6; combine them with and / or"],
    ['a.Length', 2, 'filter: expected a method name but found "Length" at position 2; methods are Contains, StartsWith, EndsWith'],
    ['a.', 2, 'filter: expected a method name at position 2; methods are Contains, StartsWith, EndsWith'],
    ['a.Contains', 10, 'filter: expected "(" after Contains at position 10'],
    ['a.Contains("x"', 14, 'filter: expected ")" at position 14'],
    ['a.Contains("x", "y")', 14, 'filter: Contains takes one argument at position 14'],
    ['a.Contains()', 11, 'filter: expected a "string" argument but found ")" at position 11'],
    ['a = and', 4, 'filter: expected a value but found "and" at position 4'],
  ])('%j', (text, pos, message) => {
    if (pos < 0) return;
    const e = err(text);
    expect(e.message).toBe(message);
    expect(e.position).toBe(pos);
    expect(e.param).toBe('filter');
  });
});

describe('parseFilter: limits', () => {
  it('rejects text longer than MAX_QUERY_LENGTH', () => {
    const e = err('a'.repeat(MAX_QUERY_LENGTH + 1));
    expect(e.message).toBe(`filter: longer than ${MAX_QUERY_LENGTH} characters at position ${MAX_QUERY_LENGTH}`);
    expect(parseFilter('a'.repeat(MAX_QUERY_LENGTH))).toMatchObject({ kind: 'field' });
  });

  it('rejects nesting deeper than MAX_FILTER_DEPTH without overflowing the stack', () => {
    const deep = (n: number) => '('.repeat(n) + 'a' + ')'.repeat(n);
    expect(p(deep(MAX_FILTER_DEPTH - 1))).toBe('a');
    expect(err(deep(MAX_FILTER_DEPTH)).message).toMatch(/^filter: nested deeper than 64 levels at position \d+$/);
    expect(err(deep(2000)).message).toMatch(/nested deeper/);
    expect(err('!'.repeat(4000) + 'a').message).toMatch(/nested deeper/);
    expect(err('not '.repeat(1000) + 'a').message).toMatch(/nested deeper/);
    expect(err('a.Contains('.repeat(300)).message).toMatch(/nested deeper/);
    expect(err('('.repeat(4096)).message).toMatch(/nested deeper/);
  });

  it('parses long flat chains iteratively into one n-ary node', () => {
    const n = parseFilter(Array.from({ length: 1000 }, () => 'a').join('||'));
    expect(n).toMatchObject({ kind: 'or' });
    expect(n?.kind === 'or' && n.operands.length).toBe(1000);
  });
});

describe('parseFilter: invisible characters are named by code point', () => {
  it.each([
    ['a\u00a0= 1', 'filter: unexpected character U+00A0 at position 1'],
    ['\u202Ea', 'filter: unexpected character U+202E at position 0'],
    ['a = 1\u0000', 'filter: unexpected character U+0000 at position 5'],
    ['\uD800', 'filter: unexpected character U+D800 at position 0'],
  ])('%j', (text, message) => {
    expect(err(text).message).toBe(message);
  });
});
