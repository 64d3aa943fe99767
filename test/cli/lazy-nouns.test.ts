// Cross-cutting: declaring only the noun a command line runs changes no command's output; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * buildProgram loads and declares only the noun a command line certainly runs (nounOf),
 * and of a noun with verbs only the verb named right after it (src/cli/noun.ts):
 * whatever the command line, what lic prints and its exit code are those of the program
 * with every noun and verb declared.
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

describe('a noun loaded for one verb', () => {
  const deps = { ctx: {} as Context, runtimeOf: () => undefined as never };
  const declared = async (noun: string, verb?: string) => {
    const program = new Command('lic');
    (await NOUNS.get(noun)!(verb))(program, deps);
    return program.commands[0]!.commands.map((c) => [c.name(), ...c.aliases()].join('|'));
  };
  it('declares exactly the verb each name and alias of the whole noun names (the verb tables agree with the verbs)', async () => {
    let verbs = 0;
    for (const noun of NOUNS.keys()) {
      const all = await declared(noun);
      for (const entry of all) {
        for (const name of entry.split('|')) expect(await declared(noun, name), `lic ${noun} ${name}`).toEqual([entry]);
        verbs++;
      }
    }
    // 6 profile, 5 keys, 6 log, 7 resources, 5 assemblies, 1 orders, 2 templates, 1 products, 1 state
    expect(verbs).toBeGreaterThanOrEqual(34);
  });
  it('a name of no verb declares them all, in order', async () => {
    expect(await declared('keys', 'lsit')).toEqual(await declared('keys'));
    expect(await declared('keys', 'lsit')).toEqual(['list|ls', 'create', 'update', 'delete|rm', 'rotate']);
  });
});

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
    ['keys', 'ls', '--help'],
    ['keys', 'rm', '--help'],
    ['keys', 'list', 'extra'],
    ['keys', 'rotate'],
    ['keys', '--help', 'list'],
    ['keys', 'help', 'list'],
    ['profile', 'ls', '--bogus'],
    ['log', 'purge', '--help'],
    ['resources', 'import', '--help'],
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
