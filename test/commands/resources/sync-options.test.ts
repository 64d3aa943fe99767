/**
 * Option parsing of `resources export`, `resources import` and `assemblies import`
 * through the verb seam (registerX(parent, deps, run)): each command line → the options
 * object the run function receives, or the usage error commander raises. No network.
 */
import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CommandDeps } from '../../../src/cli/deps.js';
import type { Runtime } from '../../../src/cli/runtime.js';
import { registerAssembliesImport } from '../../../src/commands/assemblies/import.js';
import { registerResourcesExport } from '../../../src/commands/resources/export.js';
import { registerResourcesImport } from '../../../src/commands/resources/import.js';

/** Parses `argv` with the three verbs registered under their nouns; returns what the run function got, or the commander error. */
async function parse(argv: string[]): Promise<{ opts?: unknown; error?: string }> {
  let got: unknown;
  const record = async (o: unknown) => void (got = o);
  const program = new Command().exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  const deps = {
    ctx: { now: () => new Date('2026-01-10T12:00:00Z') } as CommandDeps['ctx'],
    runtimeOf: () => ({}) as Runtime,
  } as CommandDeps;
  const resources = program.command('resources').exitOverride();
  const assemblies = program.command('assemblies').exitOverride();
  registerResourcesExport(resources, deps, record);
  registerResourcesImport(resources, deps, record);
  registerAssembliesImport(assemblies, deps, record);
  for (const c of [...resources.commands, ...assemblies.commands]) c.exitOverride();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return { opts: got };
  } catch (e) {
    if (e instanceof CommanderError) return { error: e.message };
    throw e;
  }
}

describe('options → the run function', () => {
  it.each<[string[], unknown]>([
    [['resources', 'export'], {}],
    [
      ['resources', 'export', '--type', 'RSA', '--format', 'SNK', '--name-contains', 'key', '--where', 'Id > 1'],
      { type: 'RSA', format: 'SNK', nameContains: 'key', where: 'Id > 1' },
    ],
    [['resources', 'import', '-'], { file: '-', details: undefined }],
    [['resources', 'import', 'b.ndjson', '--details', '--dry-run'], { file: 'b.ndjson', details: true }],
    [['assemblies', 'import', 'bin'], { paths: ['bin'], recursive: undefined, details: undefined }],
    [['assemblies', 'import', 'a.dll', 'bin', '-r', '--details'], { paths: ['a.dll', 'bin'], recursive: true, details: true }],
    [['assemblies', 'import', 'bin', '--recursive', '--dry-run'], { paths: ['bin'], recursive: true, details: undefined }],
  ])('%j', async (argv, expected) => {
    expect(await parse(argv)).toEqual({ opts: expected });
  });
});

describe('usage errors name the flag or argument', () => {
  it.each<[string[], string]>([
    [['resources', 'export', '--type', ''], "option '--type <type>' argument '' is invalid"],
    [['resources', 'export', '--format', ''], "option '--format <format>' argument '' is invalid"],
    [['resources', 'export', '--limit', '3'], "unknown option '--limit'"],
    [['resources', 'import'], "missing required argument 'file'"],
    [['resources', 'import', 'a', 'b'], 'too many arguments'],
    [['assemblies', 'import'], "missing required argument 'path'"],
    [['assemblies', 'import', 'bin', '--recurse'], "unknown option '--recurse'"],
  ])('%j', async (argv, message) => {
    const r = await parse(argv);
    expect(r.opts).toBeUndefined();
    expect(r.error).toContain(message);
  });
});
