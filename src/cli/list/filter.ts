/**
 * Building `filter` text of the list query language (contract §5) from friendly flags.
 * Values are always quoted here, never spliced in raw, so a flag value cannot change the
 * expression's structure.
 */

/**
 * Quotes `value` as a double-quoted filter string literal (contract §5): backslash,
 * double quote and control characters are backslash-escaped (`\\` `\"` `\n` `\r` `\t`
 * `\b` `\f` `\uXXXX`), the escapes both the service and Dynamic LINQ read.
 */
export function filterString(value: string): string {
  const escaped = value.replace(/[\\"\u0000-\u001f]/g, (c) => {
    switch (c) {
      case '\\':
        return '\\\\';
      case '"':
        return '\\"';
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      case '\b':
        return '\\b';
      case '\f':
        return '\\f';
      default:
        return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    }
  });
  return `"${escaped}"`;
}

/**
 * ANDs filter clauses (contract §5 `and`): empty/undefined/false parts are dropped; with
 * two or more, each is parenthesised so an `or` inside a `--where` keeps its meaning.
 * Returns undefined when nothing is left (no `filter` parameter is sent).
 */
export function allOf(parts: readonly (string | undefined | false | null)[]): string | undefined {
  const kept = parts.filter((p): p is string => typeof p === 'string' && p.trim() !== '');
  if (kept.length === 0) return undefined;
  if (kept.length === 1) return kept[0];
  return kept.map((p) => `(${p})`).join(' and ');
}

/** `Field = "value"` with the value quoted (filterString). */
export const equalsClause = (field: string, value: string): string => `${field} = ${filterString(value)}`;

/** `Field.Contains("text")` with the text quoted (filterString): a case-sensitive substring test (contract §5). */
export const containsClause = (field: string, text: string): string => `${field}.Contains(${filterString(text)})`;
