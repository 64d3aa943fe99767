/**
 * The command reference (docs/reference.md) and man/lic.1 are generated from the commander tree
 * (scripts/reference.ts, `npm run docs`): they fail here when stale, they name
 * every command `--help` lists, and the man page renders without a groff warning.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HELP_TOPICS } from '../../src/cli/help-topics.js';
import {
  REFERENCE_BEGIN,
  REFERENCE_END,
  collectCommands,
  renderManPage,
  renderReference,
  spliceReference,
} from '../../scripts/reference.js';
import { runCli } from '../helpers/cli.js';

const read = (p: string) => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');
const pkg = JSON.parse(read('package.json')) as { version: string; man?: string[]; files?: string[] };
const STALE = 'stale: run `npm run docs` and commit docs/reference.md and man/lic.1';

const hasGroff = spawnSync('groff', ['--version'], { stdio: 'ignore' }).status === 0;

const docs = await collectCommands();

describe('generated reference', () => {
  it('docs/reference.md holds the current command reference between its markers', () => {
    const readme = read('docs/reference.md');
    expect(readme).toContain(REFERENCE_BEGIN);
    expect(readme).toContain(REFERENCE_END);
    expect(spliceReference(readme, renderReference(docs)), STALE).toBe(readme);
  });

  it('man/lic.1 is current, and package.json ships and declares it', () => {
    expect(read('man/lic.1'), STALE).toBe(renderManPage(pkg.version, docs));
    expect(pkg.man).toEqual(['./man/lic.1']);
    expect(pkg.files).toContain('man');
  });

  it('names every verb each noun help lists, with its options', async () => {
    const readme = read('docs/reference.md');
    const man = read('man/lic.1');
    const root = await runCli(['--help']);
    const nouns = [
      ...root.stdout
        .split('\nCommands:\n')[1]!
        .split('\n\n')[0]!
        .matchAll(/^ {2}([a-z]+)\b/gm),
    ]
      .map((m) => m[1]!)
      .filter((n) => n !== 'help');
    expect(nouns).toEqual(expect.arrayContaining(['keys', 'log', 'serve', 'profile']));
    for (const noun of nouns) {
      const h = await runCli([noun, '--help']);
      const verbs = h.stdout.includes('\nCommands:\n')
        ? [
            ...h.stdout
              .split('\nCommands:\n')[1]!
              .split('\n\n')[0]!
              .matchAll(/^ {2}([a-z][a-z-]*)\b/gm),
          ]
            .map((m) => m[1]!)
            .filter((v) => v !== 'help')
        : [''];
      for (const verb of verbs) {
        const name = `lic ${noun}${verb ? ` ${verb}` : ''}`;
        expect(readme, name).toMatch(new RegExp(`^### \`${name}[ \`]`, 'm'));
        expect(man, name).toContain(`.SS "${name.replace(/-/g, '\\-')}`);
      }
    }
    // a flag of a verb, with its help text, in both
    expect(readme).toMatch(/\| `--perm <perm>` \| permission bitmask/);
    expect(man).toMatch(/^\.B \\-\\-perm <perm>\npermission bitmask/m);
  });

  it('the man page carries the help topics as ENVIRONMENT, EXIT STATUS and FILTERS, from their one source', () => {
    const man = read('man/lic.1');
    for (const [section, topic] of [
      ['ENVIRONMENT', 'environment'],
      ['EXIT STATUS', 'exit-codes'],
      ['FILTERS', 'filters'],
    ] as const) {
      expect(man).toContain(`.SH ${section}\n`);
      // a distinctive line of the topic's text, escaped as roff
      const line = HELP_TOPICS[topic]!.text.split('\n')
        .slice(1)
        .find((l: string) => l.length > 40)!;
      expect(man).toContain(line.replace(/\\/g, '\\e').replace(/-/g, '\\-'));
    }
  });

  it.skipIf(!hasGroff)('man/lic.1 renders with groff -man without a warning', () => {
    const r = spawnSync('groff', ['-man', '-ww', '-Tutf8', 'man/lic.1'], {
      encoding: 'utf8',
      cwd: new URL('../..', import.meta.url).pathname,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // groff's terminal output overstrikes bold and underlined letters: keep the letters
    const text = r.stdout.replace(/.\x08/g, '');
    expect(text).toMatch(/NAME\s+lic\s+[-‐]\s+administer a software-licensing service/);
    expect(text).toContain('EXIT STATUS');
  });
});

if (!hasGroff) {
  // visible in the run's output, not only as a skipped count
  console.warn('test/docs/reference.test.ts: groff not installed, the man page rendering check is skipped');
}
