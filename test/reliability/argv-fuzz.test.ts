/**
 * argv fuzz: ≥ 10,000 generated argument vectors over every noun, verb and
 * flag of the command tree, run in-process through main() against a live service behind
 * a counting proxy. Zero stack traces, zero exit codes outside the documented table, and
 * zero requests sent for input refused as a usage error (exit 2).
 */
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import type { Context } from '../../src/cli/context.js';
import { envFor, runCli, tempDir } from '../helpers/cli.js';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';

import { histogram, recordFigures } from './figures.js';
import { useService } from '../helpers/fixtures.js';

const RUNS = 10_000;
const EXIT_CODES = new Set([0, 1, 2, 3, 4, 5, 130]);
const STACK = /\n\s+at .+:\d+:\d+|Cannot read properties|is not a function|Maximum call stack/;
/** Verbs that never end on their own or start servers; fuzzing them would only test patience. */
const SKIP = new Set(['serve']);
const NEVER = new Set(['--follow', '-f']);

let proxy: RecordingProxy;
/** requests that reached the service so far */
const forwarded = () => proxy.seen.length;
const outDir = tempDir('lic-fuzz-out-');

const { svc } = useService({ seed: 'demo' });
/** The worker's directory before the tier: the fuzz runs in a temporary one (see beforeAll). */
const startDir = process.cwd();
beforeAll(async () => {
  // counts every request that reaches the service
  proxy = await startRecordingProxy(svc.url);
  // a fuzzed path argument (`--data-dir 7`, `--html id:desc`) that a command accepts makes a
  // file or directory relative to the working directory: one of its own, not the repository
  process.chdir(tempDir('lic-fuzz-cwd-'));
});
afterAll(async () => {
  process.chdir(startDir);
  await proxy.close();
});

interface Leaf {
  path: string[];
  options: Option[];
  args: number;
}

/** Every runnable command of the tree (noun verb, or a top-level verb) with its options. */
async function leaves(): Promise<{ leaves: Leaf[]; globals: Option[] }> {
  const ctx = { env: {}, stdout: { write: () => true, isTTY: false }, stderr: { write: () => true, isTTY: false } } as unknown as Context;
  const program = await buildProgram(ctx);
  const out: Leaf[] = [];
  const walk = (cmd: Command, path: string[]) => {
    const subs = cmd.commands.filter((c) => !SKIP.has(c.name()));
    if (subs.length === 0 && path.length) out.push({ path, options: [...cmd.options], args: cmd.registeredArguments.length });
    for (const c of subs) walk(c, [...path, c.name()]);
  };
  walk(program, []);
  return { leaves: out, globals: [...program.options] };
}

const VALUES = [
  '1',
  '7',
  '0',
  '-1',
  '2147483648',
  '1e3',
  '0x10',
  'rw',
  'rwd',
  'read,write',
  'x',
  '',
  ' ',
  '--',
  '-',
  'json',
  'JSON',
  'ndjson',
  'csv',
  'table',
  'Warning',
  'warning',
  '2025-01-18',
  '2025-01-18T14:04:02Z',
  '24h',
  '7d',
  '90d',
  'never',
  'Id = 1',
  'Level = "Error"',
  'Name.Contains("a")',
  '((',
  '"',
  'id:desc',
  'id,name',
  'bogus,fields',
  'C-00000000',
  'api_000000000000000000000000',
  '/v1/log',
  '/etc/passwd',
  '../x',
  '$(id)',
  '\u0000',
  '💥',
  'a'.repeat(300),
  '5s',
  '0ms',
  'GET',
  'post',
  'DELETE',
  'k=v',
  '=v',
];

/** Values a user would plausibly type: ids, permission forms, formats, times, fields, a filter. */
const PLAUSIBLE = [
  '1',
  '2',
  '3',
  '7',
  'rw',
  'read',
  'json',
  'ndjson',
  'csv',
  'tsv',
  'Warning',
  'Error',
  '24h',
  '7d',
  '30d',
  '2025-01-18',
  'id',
  'id,name',
  'Id > 1',
  'x',
  'demo',
  'Pending',
  'RSA',
  'email',
  '5',
  '10',
];

describe('argv fuzz', () => {
  it(`${RUNS.toLocaleString('en-US')} generated command lines: documented exit codes, no stack traces, no request for a usage error`, async () => {
    const { leaves: all, globals } = await leaves();
    expect(all.length).toBeGreaterThan(25);
    // half hostile values, half plausible ones, so the fuzz reaches the service too
    const value = fc.oneof(fc.constantFrom(...VALUES), fc.constantFrom(...PLAUSIBLE));
    const usable = (opts: Option[]) => opts.filter((o) => !NEVER.has(o.long ?? '') && !NEVER.has(o.short ?? ''));
    const flag = (opts: Option[]) =>
      fc.oneof(
        { weight: 12, arbitrary: fc.tuple(fc.constantFrom(...usable(opts)), value, fc.boolean()) },
        {
          weight: 1,
          arbitrary: fc.tuple(fc.constant({ long: '--bogus', required: false, optional: false } as unknown as Option), value, fc.boolean()),
        },
      );
    const optionArgs = (opts: Option[]) => fc.array(flag(opts), { maxLength: 3 });
    const argv = fc
      .tuple(fc.constantFrom(...all), fc.array(fc.oneof(fc.constantFrom('1', '2', '3'), value), { maxLength: 2 }), fc.boolean())
      .chain(([leaf, positionals, withRequired]) =>
        fc.tuple(
          fc.constant(leaf),
          fc.constant(positionals),
          // mandatory options (keys create --perm, orders list --customer…) given most of the time
          fc
            .tuple(
              ...leaf.options
                .filter((o) => o.mandatory)
                .map((o) => fc.tuple(fc.constant(o), fc.constantFrom(...PLAUSIBLE), fc.constant(false))),
            )
            .map((t) => (withRequired ? t : [])),
          leaf.options.length ? optionArgs(leaf.options) : fc.constant([]),
          fc.array(flag(globals), { maxLength: 2 }),
        ),
      )
      .map(([leaf, positionals, required, own, global]) => {
        const flags: string[] = [];
        for (const [o, v, short] of [...required, ...own, ...global]) {
          const name = short && o.short ? o.short : (o.long ?? o.short ?? '--bogus');
          flags.push(name);
          // a file written by the CLI goes to a scratch dir, never over a real path
          if (o.required || o.optional) flags.push(o.long === '--data-out' || o.long === '--key-file' ? join(outDir, 'out.bin') : v);
        }
        return [...leaf.path, ...positionals.slice(0, leaf.args), ...flags];
      });
    const codes: number[] = [];
    const bad: string[] = [];
    let usage = 0;
    let usageWithRequest = 0;
    const t0 = performance.now();
    await fc.assert(
      fc.asyncProperty(argv, async (args) => {
        const before = forwarded();
        const r = await runCli(args, { env: envFor({ url: proxy.url }, svc.adminKey) });
        codes.push(r.code);
        if (!EXIT_CODES.has(r.code)) bad.push(`exit ${r.code}: lic ${JSON.stringify(args)}`);
        if (STACK.test(r.stderr) || STACK.test(r.stdout)) bad.push(`stack: lic ${JSON.stringify(args)}: ${r.stderr.slice(0, 300)}`);
        if (r.code === 2) {
          usage++;
          if (forwarded() !== before)
            (usageWithRequest++, bad.push(`exit 2 after ${forwarded() - before} request(s): lic ${JSON.stringify(args)}`));
        }
      }),
      { numRuns: RUNS, seed: 20261123 },
    );
    const seconds = (performance.now() - t0) / 1000;
    expect(bad.slice(0, 20)).toEqual([]);
    recordFigures('argv-fuzz', 'argv fuzz: generated command lines through main() against a live service', {
      'command lines': codes.length,
      'commands covered': all.length,
      'stack traces': 0,
      'exit codes outside the table': 0,
      'usage errors (exit 2)': usage,
      'requests sent for a usage error': usageWithRequest,
      ...Object.fromEntries(Object.entries(histogram(codes)).map(([c, n]) => [`exit ${c}`, n])),
      'requests that reached the service': forwarded(),
      'duration (s)': seconds.toFixed(1),
    });
  });
});
