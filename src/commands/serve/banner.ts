/**
 * The text `lic serve` prints on start (stderr; the URL alone goes to stdout), wrapped to
 * the terminal at spaces (src/cli/layout.ts: a path is never broken), in the order a person reads it: the database, what to
 * back up, the keys made on this start as an aligned table, the profile, a short hint, and
 * last the line that introduces the URL, so on a 24-row terminal the URL is the last line
 * on the screen.
 */
import type { IssuedKey } from '../../server/index.js';

/** The keys made on this start as aligned lines under a `ROLE USER KEY` header, indented by 2. */
export function keyTable(keys: readonly Pick<IssuedKey, 'role' | 'userId' | 'key'>[]): string[] {
  const rows = [['ROLE', 'USER', 'KEY'], ...keys.map((k) => [k.role, k.userId, k.key])];
  const widths = [0, 1].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => `  ${r[0]!.padEnd(widths[0]!)}  ${r[1]!.padEnd(widths[1]!)}  ${r[2]}`);
}

/** The note about the file whose key encrypts resource passwords (made on this start); wrapped to the terminal by the renderer. */
export function secretKeyLines(path: string): string[] {
  return [`lic serve: back up ${path} (0600) apart from the database: it encrypts resource passwords, which can't be recovered without it`];
}

/**
 * What to try the seeded data with: the full list of ids (`summary`, from seededSummary) with
 * `verbose`, else one command from it and where the rest is; empty for an empty dataset.
 */
export function seedHints(summary: readonly string[], verbose: boolean): string[] {
  if (summary.length === 0) return [];
  if (verbose) return ['lic serve: the seeded data, ids to try:', ...summary.map((l) => `  ${l}`)];
  const first = summary.map((l) => l.trim()).find((l) => l.startsWith('lic '));
  return [`lic serve: data loaded${first ? `; try: ${first.replace(/\s+#.*$/, '')}` : ''}`, '  (lic serve --verbose lists the ids to try)'];
}

/**
 * The last line on stderr before the URL: on a terminal it introduces the URL printed on
 * the next line (stdout); otherwise it carries the URL itself, for a log.
 */
export function listeningLine(url: string, stdoutIsTTY: boolean): string {
  return `lic serve: Ctrl-C stops it; listening on${stdoutIsTTY ? ':' : ` ${url}`}`;
}
