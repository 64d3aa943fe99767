/**
 * Option parsing through the verb seam (registerX(parent, deps, run)) of `resources export`,
 * `resources import` and `assemblies import`, with no network: a command line → the options
 * object the run function receives, or the usage error commander raises.
 */
import { Command, CommanderError } from 'commander';
import type { CommandDeps } from '../../src/cli/deps.js';
import type { Runtime } from '../../src/cli/runtime.js';
import { registerAssembliesImport } from '../../src/commands/assemblies/import.js';
import { registerResourcesExport } from '../../src/commands/resources/export.js';
import { registerResourcesImport } from '../../src/commands/resources/import.js';

/** Parses `argv` with the three verbs registered under their nouns; returns what the run function got, or the commander error. */
export async function parseVerb(argv: string[]): Promise<{ opts?: unknown; error?: string }> {
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
