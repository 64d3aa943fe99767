// Cross-cutting: every help page fits the terminal; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * Every help page fits the terminal (docs/output-and-scripts.md, "Terminal width"): `lic
 * --help`, every noun's and verb's `--help` (enumerated from the command tree, so a new verb
 * is covered) and every `lic help TOPIC`, rendered by the built CLI in a pseudo-terminal of
 * 60, 80 and 120 columns. A line wider than the terminal fails, naming the page and the line.
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import stringWidth from 'string-width';
import { buildProgram } from '../../src/cli/program.js';
import { HELP_TOPICS } from '../../src/cli/help-topics.js';
import { testContext } from '../helpers/context.js';
import { BIN, LIC_NODE, hasScript } from '../helpers/spawn.js';

/** The argument lists of every help page: the root, each visible command's --help, each topic. */
async function helpPages(): Promise<string[][]> {
  const program = await buildProgram(testContext().ctx, [], { allNouns: true });
  const pages: string[][] = [['--help']];
  const walk = (cmd: Command, path: string[]) => {
    for (const sub of cmd.commands) {
      if ((sub as Command & { _hidden?: boolean })._hidden || sub.name() === 'help') continue;
      pages.push([...path, sub.name(), '--help']);
      walk(sub, [...path, sub.name()]);
    }
  };
  walk(program, []);
  for (const topic of Object.keys(HELP_TOPICS)) pages.push(['help', topic]);
  return pages;
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const MARK = '@@page ';

/** Every page's lines as a `cols`-wide pseudo-terminal shows them, by page (one `script` for all pages). */
function renderAll(pages: string[][], cols: number): Promise<Map<string, string[]>> {
  const runs = pages.map((p) => `echo ${q(MARK + p.join(' '))}; ${[LIC_NODE, BIN, ...p].map(q).join(' ')}`).join('; ');
  return new Promise((resolve, reject) => {
    execFile(
      'script',
      ['-qefc', `stty cols ${cols} rows 50; ${runs}`, '/dev/null'],
      // COLUMNS unset: the width is the pty's, as a resized window gives it
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TERM: 'xterm' }, maxBuffer: 64 << 20, timeout: 120_000 },
      (err, stdout) => {
        if (err) return reject(err);
        const byPage = new Map<string, string[]>();
        let cur: string[] = [];
        for (const raw of stdout.replace(/\r/g, '').split('\n')) {
          const line = raw.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
          if (line.startsWith(MARK)) byPage.set(line.slice(MARK.length), (cur = []));
          else cur.push(line);
        }
        resolve(byPage);
      },
    );
  });
}

const pages = await helpPages();

describe.skipIf(!hasScript)('every help page fits the terminal', () => {
  it('covers the root, every noun and verb and every topic', () => {
    expect(pages.length).toBeGreaterThanOrEqual(45);
    expect(pages).toContainEqual(['keys', 'rotate', '--help']);
    expect(pages).toContainEqual(['help', 'filters']);
  });

  it.each([60, 80, 120])('at %i columns no line is wider than the terminal', { timeout: 180_000 }, async (cols) => {
    const shown = await renderAll(pages, cols);
    expect(shown.size).toBe(pages.length);
    const over: string[] = [];
    let widest = 0;
    for (const [page, lines] of shown) {
      expect(lines.join('\n'), page).toMatch(/\S/);
      for (const l of lines) {
        const w = stringWidth(l);
        widest = Math.max(widest, w);
        if (w > cols) over.push(`lic ${page} (${w}): ${l}`);
      }
    }
    console.log(`help at ${cols} columns: ${pages.length} pages, widest line ${widest}, ${over.length} lines too wide`);
    expect(over).toEqual([]);
  });
});
