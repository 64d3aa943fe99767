/** Shared steps of the list verbs' tests (test/commands/<noun>/list.test.ts): run a list verb in-process and read its output back. */
import { parse as parseCsv } from 'csv-parse/sync';
import { expect, it } from 'vitest';
import { runCli, type RunResult } from './cli.js';
import { ndjson } from './fixtures.js';

export type Rec = Record<string, unknown>;

export { ndjson } from './fixtures.js';

/** The GET requests a `--verbose` run traced on stderr. */
export const requests = (stderr: string): URL[] => [...stderr.matchAll(/^> GET (\S+)/gm)].map((m) => new URL(m[1]!));

/** Runs `lic ARGS` and fails the test with its stderr unless it exits 0. */
export async function ok(args: string[], env: Record<string, string>): Promise<RunResult> {
  const r = await runCli(args, { env });
  expect(r.code, `lic ${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r;
}

/** Every record of a list, unfiltered: `lic LIST -o json --all` → body[arrayField]. */
export async function fullList(args: string[], arrayField: string, env: Record<string, string>): Promise<Rec[]> {
  const r = await ok([...args, '-o', 'json', '--all'], env);
  const body = JSON.parse(r.stdout) as Rec;
  const recs = body[arrayField];
  expect(Array.isArray(recs)).toBe(true);
  return recs as Rec[];
}

/** The records `lic LIST ...flags -o ndjson --all` prints. */
export async function listed(args: string[], env: Record<string, string>): Promise<Rec[]> {
  return ndjson((await ok([...args, '-o', 'ndjson', '--all'], env)).stdout);
}

/** The ids of records, in order. */
export const ids = (recs: readonly Rec[]): unknown[] => recs.map((r) => r.id);

/** `-o csv` output parsed back: header row and data rows (RFC 4180, csv-parse). */
export function csvRows(out: string): { header: string[]; rows: string[][] } {
  const all = parseCsv(out) as string[][];
  expect(all.length).toBeGreaterThan(0);
  return { header: all[0]!, rows: all.slice(1) };
}

/** Asserts a usage error (exit 2) that names `flag`, with nothing on stdout and no stack trace. */
export function expectUsage(r: RunResult, flag: string): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain(flag);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

/**
 * One test per bad command line: `list()` (the verb with its required flags) and the args,
 * run with --verbose: exit 2 naming the flag (expectUsage), and no request sent.
 */
export function itRejects(list: () => string[], env: Record<string, string>, cases: [args: string[], flag: string][]): void {
  it.each(cases)('%j', async (args, flag) => {
    const r = await runCli([...list(), ...args, '--verbose'], { env });
    expectUsage(r, flag);
    expect(requests(r.stderr)).toEqual([]);
  });
}
