/**
 * bin/lic.js prints the help pages of dist/help.json (scripts/prebuilt-help.mjs, written by
 * the build from the bundle's own main()) without loading dist/cli.cjs: every page it serves
 * must be what the bundle prints for the same command line, byte for byte, with the same exit
 * code, in a pipe and on a terminal of the page's width; on a terminal of another width the
 * bundle prints it.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HELP_TOPICS } from '../../src/cli/help-topics.js';
import { NOUNS } from '../../src/cli/program.js';
import { tempDir } from '../helpers/cli.js';
import { BIN, LIC_NODE, WHOLE_CLI, hasScript, spawnLic, spawnWholeCli, type SpawnResult } from '../helpers/spawn.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface PrebuiltHelp {
  width: number;
  texts: string[];
  /** JSON.stringify(argv) → [fd, exit code, text index, served on a terminal of `width` too] */
  pages: Record<string, [1 | 2, number, number, boolean]>;
}
const help = JSON.parse(readFileSync(join(ROOT, 'dist/help.json'), 'utf8')) as PrebuiltHelp;
const served = Object.keys(help.pages).map((k) => JSON.parse(k) as string[]);

/** `lic ARGS` through the bundle itself, never the prebuilt pages; pipes, the environment of spawnLic. */
function spawnBundle(args: string[]): Promise<SpawnResult> {
  return spawnWholeCli(args, { NODE_DISABLE_COMPILE_CACHE: '1' });
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** What a `cols`-wide pseudo-terminal shows of `command` (COLUMNS unset), and its exit code. */
function onTerminal(command: string[], cols: number): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      'script',
      ['-qefc', `stty cols ${cols} rows 50; ${command.map(q).join(' ')}`, '/dev/null'],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TERM: 'xterm' }, maxBuffer: 16 << 20, timeout: 60_000 },
      (err, stdout) => {
        if (err && typeof err.code !== 'number') return reject(err);
        resolve({ code: typeof err?.code === 'number' ? err.code : 0, output: stdout });
      },
    );
  });
}

describe('dist/help.json', () => {
  it('serves the root, every noun and every help topic', () => {
    expect(help.width).toBe(80);
    for (const argv of [[], ['--help'], ['-h'], ['help']]) expect(served).toContainEqual(argv);
    for (const noun of NOUNS.keys()) {
      expect(served).toContainEqual([noun, '--help']);
      expect(served).toContainEqual(['help', noun]);
    }
    for (const topic of Object.keys(HELP_TOPICS)) expect(served).toContainEqual(['help', topic]);
    // `lic keys` (no verb) is keys' help, a usage error; `lic serve` alone would serve, and is not a page
    expect(help.pages['["keys"]']?.slice(0, 2)).toEqual([2, 2]);
    expect(served).not.toContainEqual(['serve']);
  });

  it("bin/lic.js looks in it only for a command line of a page's shape (mayHaveHelpPage)", () => {
    const { mayHaveHelpPage } = createRequire(import.meta.url)(BIN) as { mayHaveHelpPage: (args: string[]) => boolean };
    for (const argv of served) expect(mayHaveHelpPage(argv), JSON.stringify(argv)).toBe(true);
    // what users run most: no help.json read and parsed (46 KB) to find no page
    for (const argv of [
      ['keys', 'list'],
      ['log', 'stats'],
      ['keys', 'list', '-o', 'json'],
      ['-o', 'json', 'keys', 'list'],
      ['keys', 'get', '--help'],
    ])
      expect(mayHaveHelpPage(argv), JSON.stringify(argv)).toBe(false);
  });
});

describe('bin/lic.js prints a prebuilt page as the bundle does', () => {
  it.each(served)('lic %j, piped', { timeout: 30_000 }, async (...argv) => {
    const [fast, bundle] = await Promise.all([spawnLic(argv), spawnBundle(argv)]);
    expect(fast.stdout).toBe(bundle.stdout);
    expect(fast.stderr).toBe(bundle.stderr);
    expect(fast.code).toBe(bundle.code);
    expect(`${fast.stdout}${fast.stderr}`).toMatch(/^Usage: lic|^(Environment variables|Exit codes|Filters)/);
  });

  describe.skipIf(!hasScript)('on a terminal', () => {
    const lines = [['--help'], [], ['keys', '--help'], ['help', 'filters'], ['log']];
    it.each(lines.flatMap((argv) => [80, 200].map((cols) => [cols, argv] as const)))(
      'at %i columns: lic %j',
      { timeout: 60_000 },
      async (cols, argv) => {
        const [fast, bundle] = await Promise.all([
          onTerminal([LIC_NODE, BIN, ...argv], cols),
          onTerminal([LIC_NODE, WHOLE_CLI, ...argv], cols),
        ]);
        expect(fast.output).toBe(bundle.output);
        expect(fast.code).toBe(bundle.code);
        expect(fast.output).toMatch(/Usage: lic|Filters/);
      },
    );
  });
});

describe('which runs bin/lic.js answers from dist/help.json (a copy of bin/ with a marked help.json and a stand-in bundle)', () => {
  /** bin/lic.js beside a dist/ whose pages all read MARK and whose bundles print `BUNDLE <file>` (dist/cli.cjs and each noun's dist/cli-NOUN.cjs). */
  function copy(): string {
    const dir = tempDir('lic-prebuilt-help-');
    mkdirSync(join(dir, 'bin'));
    mkdirSync(join(dir, 'dist'));
    copyFileSync(BIN, join(dir, 'bin/lic.js'));
    copyFileSync(join(ROOT, 'bin/package.json'), join(dir, 'bin/package.json'));
    copyFileSync(join(ROOT, 'dist/version.json'), join(dir, 'dist/version.json'));
    copyFileSync(join(ROOT, 'dist/command-line.cjs'), join(dir, 'dist/command-line.cjs'));
    writeFileSync(join(dir, 'dist/help.json'), JSON.stringify({ ...help, texts: help.texts.map(() => 'MARK\n') }));
    const { nouns } = JSON.parse(readFileSync(join(ROOT, 'dist/version.json'), 'utf8')) as { nouns: string[] };
    // a noun's bundle is one function expression, CommonJS's wrapper round it (scripts/build.mjs)
    for (const file of ['cli.cjs', ...nouns.map((n) => `cli-${n}.cjs`)]) {
      const code = `exports.systemContext = () => ({});\nexports.main = async () => (process.stdout.write('BUNDLE ${file}\\n'), 0);\n`;
      writeFileSync(
        join(dir, 'dist', file),
        file === 'cli.cjs' ? code : `(function (exports, require, module, __filename, __dirname) {${code}})\n`,
      );
    }
    return join(dir, 'bin/lic.js');
  }

  it('piped: a page it holds from the file with its exit code, anything else from the bundle', async () => {
    const bin = copy();
    const run = (args: string[]) =>
      new Promise<SpawnResult>((resolve) => {
        execFile(LIC_NODE, [bin, ...args], { env: { PATH: process.env.PATH ?? '' } }, (err, stdout, stderr) =>
          resolve({ code: err ? Number(err.code) : 0, signal: null, stdout, stderr }),
        );
      });
    expect(await run(['--help'])).toMatchObject({ code: 0, stdout: 'MARK\n', stderr: '' });
    expect(await run([])).toMatchObject({ code: 2, stdout: '', stderr: 'MARK\n' });
    expect(await run(['help', 'keys'])).toMatchObject({ code: 0, stdout: 'MARK\n' });
    // the bundle of the noun named (first, or after root flags), else the whole CLI
    for (const [args, file] of [
      [['keys', 'list', '--help'], 'cli-keys.cjs'],
      [['--no-color', '--help'], 'cli.cjs'],
      [['serve'], 'cli-serve.cjs'],
      [['keys', 'list'], 'cli-keys.cjs'],
      [['-o', 'json', 'keys', 'list'], 'cli-keys.cjs'],
      [['--json', 'keys', 'list'], 'cli.cjs'],
      [['completion', 'bash'], 'cli.cjs'],
      [['kyes', 'list'], 'cli.cjs'],
    ] as const)
      expect(await run([...args]), args.join(' ')).toMatchObject({ code: 0, stdout: `BUNDLE ${file}\n` });
  });

  it.skipIf(!hasScript)('on a terminal: the file at its width (or COLUMNS=80), the bundle at any other', async () => {
    const bin = copy();
    expect((await onTerminal([LIC_NODE, bin, '--help'], 80)).output).toBe('MARK\r\n');
    expect((await onTerminal([LIC_NODE, bin, '--help'], 200)).output).toBe('BUNDLE cli.cjs\r\n');
    expect((await onTerminal(['env', 'COLUMNS=80', LIC_NODE, bin, '--help'], 200)).output).toBe('MARK\r\n');
    expect((await onTerminal(['env', 'COLUMNS=100', LIC_NODE, bin, '--help'], 80)).output).toBe('BUNDLE cli.cjs\r\n');
  });
});
