// Cross-cutting: declaring only the noun a command line runs changes no command's output; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * buildProgram loads and declares only the noun a command line certainly runs (nounOf):
 * whatever the command line, what lic prints and its exit code are those of the program
 * with every noun declared.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/cli/context.js';
import { main } from '../../src/cli/main.js';
import { buildProgram, NOUNS, nounOf } from '../../src/cli/program.js';
import { testContext } from '../helpers/context.js';

describe('NOUNS', () => {
  it('names each noun by the command its module declares', async () => {
    for (const [name, load] of NOUNS) {
      const root = new Command('lic');
      (await load())(root, { ctx: {} as Context, runtimeOf: () => undefined as never });
      expect(root.commands.map((c) => c.name())).toEqual([name]);
    }
  });
});

const root = await buildProgram({} as Context);

describe('nounOf', () => {
  it.each([
    [['keys', 'list'], 'keys'],
    [['--profile', 'log', 'keys', 'list'], 'keys'],
    [['--profile=log', 'log', 'list'], 'log'],
    [['-o', 'json', '-q', 'resources', 'list'], 'resources'],
    [['--no-color', '--timeout', '5s', 'serve'], 'serve'],
    [['keys', '--json', 'id', 'list'], 'keys'],
  ])('%j → %s', (argv, name) => {
    expect(nounOf(argv, root)).toBe(name);
  });
  it.each([
    [[]],
    [['--help']],
    [['help', 'keys']],
    [['kyes']],
    [['--json', 'keys', 'list']],
    [['--', 'keys']],
    [['--prfile', 'x', 'keys']],
    [['environment']],
    [['-o']],
  ])('%j → every noun', (argv) => {
    expect(nounOf(argv, root)).toBeUndefined();
  });
});

describe('one noun declared or all: the same output and exit code', () => {
  const lines = [
    ['--help'],
    ['keys', '--help'],
    ['keys', 'list', '--help'],
    ['log', 'list', '--help'],
    ['keys', 'lsit'],
    ['keys'],
    ['kyes', 'list'],
    ['keys', 'create', '--prem', '7'],
    ['--profile', 'log', 'keys', 'list', '--take', 'x'],
    ['-o', 'yaml', 'keys', 'list'],
    ['help', 'log'],
    ['templates', 'show', '--help'],
    ['completion', 'nosuch'],
    ['completion', 'bash'],
    ['completion', 'zsh'],
    ['serve', '--port', 'x'],
    ['api', '--help'],
    ['profile', 'show', '--help'],
    ...[...NOUNS.keys()].map((n) => [n, '--help']),
  ];
  it.each(lines)('lic %j', async (...argv) => {
    const lazy = testContext();
    const all = testContext();
    const lazyCode = await main(argv, lazy.ctx);
    const allCode = await main(argv, all.ctx, { allNouns: true });
    expect(lazyCode).toBe(allCode);
    expect(lazy.stdout()).toBe(all.stdout());
    expect(lazy.stderr()).toBe(all.stderr());
    expect(`${lazy.stdout()}${lazy.stderr()}`).not.toBe('');
  });
});
