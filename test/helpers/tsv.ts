/**
 * One field of lic's TSV read back in a test: the inverse of tsvField (src/cli/list/format.ts,
 * the PostgreSQL COPY escapes `\\` `\t` `\n` `\r`). lic itself never reads TSV.
 */
export function tsvUnescape(s: string): string {
  return s.replace(/\\([\\tnr])/g, (_m, c: string) => (c === '\\' ? '\\' : c === 't' ? '\t' : c === 'n' ? '\n' : '\r'));
}
