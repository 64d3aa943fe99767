/** Every verb's --help ends in an `Examples:` block of `lic <noun> <verb> ...` lines (STYLE: help shows realistic use). */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/cli/context.js';
import { buildProgram } from '../../src/cli/program.js';
import { runCli } from '../helpers/cli.js';

/** The command paths of every verb (a command without subcommands), e.g. ['keys', 'create']. */
function verbs(cmd: Command, path: string[] = []): string[][] {
  if (cmd.commands.length === 0) return [path];
  return cmd.commands.flatMap((c) => verbs(c, [...path, c.name()]));
}

// building the tree touches no stream, file or clock
const checked = verbs(buildProgram({} as Context));

describe('--help examples', () => {
  it('the tree holds the verbs of every noun', () => {
    expect(checked.map((p) => p.join(' '))).toEqual(expect.arrayContaining(['keys update', 'keys delete', 'resources delete', 'assemblies delete', 'log tail', 'profile add', 'completion', 'serve']));
  });

  it.each(checked.map((p) => [p.join(' '), p] as const))('lic %s --help has an Examples: block using that verb', async (_name, path) => {
    const r = await runCli([...path, '--help']);
    expect(r.code, r.stderr).toBe(0);
    const block = r.stdout.split('\nExamples:\n')[1];
    expect(block, r.stdout).toBeDefined();
    const lines = block!.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.some((l) => l.trimStart().startsWith(`lic ${path.join(' ')}`))).toBe(true);
  });
});
