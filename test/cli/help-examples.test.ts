// Cross-cutting: every noun's and verb's --help ends in examples; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/** Every verb's and every noun's --help ends in an `Examples:` block of `lic <noun> [<verb>] ...` lines (STYLE: help shows realistic use). */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/cli/context.js';
import { buildProgram } from '../../src/cli/program.js';
import { runCli } from '../helpers/cli.js';

/** The visible subcommands (help topics are hidden commands, checked in help-topics.test.ts). */
const visible = (cmd: Command) => cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);

/** The command paths of every verb (a command without subcommands), e.g. ['keys', 'create']. */
function verbs(cmd: Command, path: string[] = []): string[][] {
  if (visible(cmd).length === 0) return [path];
  return visible(cmd).flatMap((c) => verbs(c, [...path, c.name()]));
}

// building the tree touches no stream, file or clock
const program = await buildProgram({} as Context);
const checked = verbs(program);
/** The nouns: commands with verbs below them, e.g. ['keys']. */
const nouns = visible(program)
  .filter((c) => visible(c).length > 0)
  .map((c) => [c.name()]);

describe('--help examples', () => {
  it('the tree holds the verbs of every noun', () => {
    expect(checked.map((p) => p.join(' '))).toEqual(
      expect.arrayContaining([
        'keys update',
        'keys delete',
        'resources delete',
        'assemblies delete',
        'log tail',
        'profile add',
        'completion',
        'serve',
      ]),
    );
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

  it('the nouns are all there', () => {
    expect(nouns.map((p) => p[0])).toEqual(
      expect.arrayContaining(['keys', 'resources', 'assemblies', 'log', 'orders', 'templates', 'products', 'profile']),
    );
  });

  it.each(nouns.map((p) => [p.join(' '), p] as const))('lic %s --help ends with 2-3 examples using that noun', async (_name, path) => {
    const r = await runCli([...path, '--help']);
    expect(r.code, r.stderr).toBe(0);
    // a command line wider than the help is continued with ` \` (src/cli/layout.ts): one example
    const block = r.stdout.split('\nExamples:\n')[1]?.replace(/ \\\n +/g, ' ');
    expect(block, r.stdout).toBeDefined();
    const lines = block!.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.length).toBeLessThanOrEqual(3);
    for (const l of lines) expect(l.trimStart().startsWith(`lic ${path.join(' ')} `), l).toBe(true);
    // and each example names a real verb of the noun
    const verbNames = program.commands.find((c) => c.name() === path[0])!.commands.map((c) => c.name());
    for (const l of lines) expect(verbNames, l).toContain(l.trim().split(/\s+/)[2]);
  });
});
