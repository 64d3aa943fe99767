// Cross-cutting: which verbs declare -o and with which formats, and output flags before the noun; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * Cross-cutting: which verbs declare `-o/--output` (src/cli/parse.ts outputFormats) and with
 * which formats, as docs/output-and-scripts.md lists them; and the output flags typed before
 * the command (`lic -o json keys list`) handed to the verb (hoistOutputFlags).
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, hoistOutputFlags } from '../../src/cli/program.js';
import { testContext } from '../helpers/context.js';

const ALL = 'table, json, ndjson, csv, tsv';

/** Each leaf command's `-o` choices, `-` for none; with `+json` when it has --json and --raw. */
async function outputTable(): Promise<Record<string, string>> {
  const program = await buildProgram(testContext().ctx, [], { allNouns: true });
  const out: Record<string, string> = {};
  const walk = (c: Command, path: string[]) => {
    for (const sub of c.commands) {
      if (sub.commands.length) {
        walk(sub, [...path, sub.name()]);
        continue;
      }
      const o = sub.options.find((x) => x.long === '--output');
      const json = ['--json', '--raw'].every((f) => sub.options.some((x) => x.long === f));
      out[[...path, sub.name()].join(' ')] = o ? `${o.argChoices!.join(', ')}${json ? ' +json' : ''}` : '-';
    }
  };
  walk(program, []);
  return out;
}

const table = await outputTable();

describe('-o is declared by the verbs that honour it, with the formats each prints', () => {
  it.each(Object.entries(table))('%s', (verb, formats) => {
    const expected: Record<string, string> = {
      // nothing to format: a note, a script, a server, JSON always, help pages
      'profile add': '-',
      'profile use': '-',
      'profile remove': '-',
      serve: '-',
      api: '-',
      completion: '-',
      environment: '-',
      'exit-codes': '-',
      filters: '-',
      help: '-',
      // a note, or the service's reply with -o json (Renderer.done)
      'keys update': 'table, json +json',
      'keys delete': 'table, json +json',
      'resources update': 'table, json +json',
      'resources delete': 'table, json +json',
      'assemblies update': 'table, json +json',
      'assemblies delete': 'table, json +json',
      // a document of its own (YAML, a template body, an HTML page), or the json
      'state export': 'table, json +json',
      'templates show': 'table, json +json',
      'log report': 'table, json +json',
      // the bundle is ndjson
      'resources export': 'table, ndjson',
    };
    expect(formats).toBe(expected[verb] ?? `${ALL} +json`);
  });
});

const root = await buildProgram(testContext().ctx);

describe('hoistOutputFlags: output flags before the command go to the verb', () => {
  it.each([
    [
      ['-o', 'json', 'keys', 'list'],
      ['keys', 'list', '-o', 'json'],
    ],
    [
      ['--profile', 'p', '--output=csv', '-q', 'keys', 'list', '--all'],
      ['--profile', 'p', '-q', 'keys', 'list', '--all', '--output=csv'],
    ],
    [
      ['--json=', 'keys', 'list'],
      ['keys', 'list', '--json='],
    ],
    [
      ['--json', 'id,name', '--raw', 'keys', 'list'],
      ['keys', 'list', '--json', 'id,name', '--raw'],
    ],
    [
      ['-ojson', 'api', 'GET', '/v1/x', '--', '-o'],
      ['api', 'GET', '/v1/x', '-ojson', '--', '-o'],
    ],
    [
      ['keys', '--json=', 'ls', '--limit', '1'],
      ['keys', 'ls', '--limit', '1', '--json='],
    ],
    // after the command they are the verb's already
    [
      ['keys', 'list', '-o', 'json'],
      ['keys', 'list', '-o', 'json'],
    ],
  ])('%j → %j', (args, expected) => {
    expect(hoistOutputFlags(args, root)).toEqual(expected);
  });
});
