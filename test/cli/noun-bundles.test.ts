// Cross-cutting: a command line that names a noun runs from that noun's own bundle (dist/cli-NOUN.cjs) and prints what the whole CLI prints; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * scripts/build.mjs writes, besides dist/cli.cjs (the whole CLI), one bundle per noun:
 * dist/cli-NOUN.cjs, the whole CLI without the other nouns' modules. bin/lic.js runs it for a
 * command line that names NOUN (first, or after root flags: dist/version.json `nouns` and
 * `rootFlags`, src/cli/command-line.ts), and dist/cli.cjs for any other (`help`, `completion`,
 * a typo). Both must print the same: WHOLE_CLI (test/helpers/spawn.ts) runs a command line
 * through dist/cli.cjs's own main(). test/cli/startup-guard.test.ts checks which file each one loads.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlagArity } from '../../src/cli/command-line.js';
import type { Context } from '../../src/cli/context.js';
import { buildProgram, NOUNS, nounOf, rootFlagArity } from '../../src/cli/program.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { BIN, spawnLic, spawnNode, spawnWholeCli } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const meta = JSON.parse(readFileSync(join(ROOT, 'dist/version.json'), 'utf8')) as {
  nouns: string[];
  rootFlags: Record<string, FlagArity>;
};
/** bin/lic.js's choice of bundle for a command line. */
const { bundleFile } = createRequire(import.meta.url)(BIN) as {
  bundleFile: (args: string[], m: typeof meta) => { file: string; noun?: string };
};

/** `[noun, verb?]` for every command of NOUNS: each verb of a noun with verbs, else the top-level verb alone. */
async function commands(): Promise<[string, string | undefined][]> {
  const out: [string, string | undefined][] = [];
  for (const [noun, load] of NOUNS) {
    const root = new Command('lic');
    (await load())(root, { ctx: {} as Context, runtimeOf: () => undefined as never });
    const verbs = root.commands[0]!.commands.map((c) => c.name());
    if (verbs.length) for (const verb of verbs) out.push([noun, verb]);
    else out.push([noun, undefined]);
  }
  return out;
}

describe('the noun bundles (dist/cli-NOUN.cjs)', () => {
  it('one for every noun of src/cli/program.ts but completion, which describes them all', () => {
    expect(meta.nouns).toEqual([...NOUNS.keys()].filter((n) => n !== 'completion'));
    for (const noun of meta.nouns) expect(existsSync(join(ROOT, `dist/cli-${noun}.cjs`)), noun).toBe(true);
    expect(existsSync(join(ROOT, 'dist/cli-completion.cjs'))).toBe(false);
  });

  it("every verb's --help is the whole CLI's, byte for byte, with the same exit code", async () => {
    const all = await commands();
    // 6 profile, 5 keys, 6 log, 7 resources, 5 assemblies... and the top-level verbs
    expect(all.length).toBeGreaterThanOrEqual(40);
    for (const [noun, verb] of all) {
      if (noun === 'completion') continue;
      const args = [noun, ...(verb ? [verb] : []), '--help'];
      const [own, all] = await Promise.all([spawnLic(args), spawnWholeCli(args)]);
      expect(own.stderr, args.join(' ')).toBe(all.stderr);
      expect(own.stdout, args.join(' ')).toBe(all.stdout);
      expect(own.stdout, args.join(' ')).toContain(`lic ${noun}`);
      expect([own.code, all.code], args.join(' ')).toEqual([0, 0]);
    }
  }, 120_000);

  it("bin/lic.js's table of root flags (dist/version.json rootFlags) is the program's", () => {
    expect(meta.rootFlags).toEqual(rootFlagArity());
    expect(meta.rootFlags['--profile']).toBe('required');
    expect(meta.rootFlags['--json']).toBe('optional');
  });

  it('bin/lic.js runs the bundle of the one noun buildProgram declares, for any command line (fast-check)', async () => {
    const root = await buildProgram({} as Context);
    const word = fc.constantFrom(
      ...[...NOUNS.keys()],
      'help',
      'kyes',
      'list',
      'create',
      'json',
      'prod',
      '5s',
      '--',
      '-',
      '--help',
      '-h',
      '--json=id,name',
      '--json',
      '--profile=prod',
      '--nope',
      '-x',
      ...Object.keys(meta.rootFlags),
    );
    const seen = new Set<string>();
    fc.assert(
      fc.property(fc.array(word, { maxLength: 6 }), (args) => {
        const noun = nounOf(args, root);
        const got = bundleFile(args, meta);
        seen.add(got.noun ?? '');
        expect(got.noun).toBe(noun);
        expect(got.file).toBe(join(ROOT, 'dist', noun ? `cli-${noun}.cjs` : 'cli.cjs'));
      }),
      { numRuns: 2000 },
    );
    // the property met both cases: command lines with a noun of their own, and the whole CLI's
    expect(seen.has('')).toBe(true);
    expect(seen.size).toBeGreaterThan(5);
    expect(bundleFile(['--profile', 'keys', 'log', 'list'], meta).noun).toBe('log');
    expect(bundleFile(['-o', 'json', 'keys', 'list'], meta).noun).toBe('keys');
    expect(bundleFile(['--json', 'keys', 'list'], meta).noun).toBeUndefined();
    expect(bundleFile(['completion', 'bash'], meta).noun).toBeUndefined();
  });

  it("a bundle that is asked for another noun says so: an internal error naming both, not another noun's output", async () => {
    // bin/lic.js never does this; the bundle's own main() with another noun's command line,
    // the bundle loaded as bin/lic.js loads it (requireWithCache, without a code cache)
    const file = join(ROOT, 'dist/cli-keys.cjs');
    const script = [
      `const m = require(${JSON.stringify(BIN)}).requireWithCache(${JSON.stringify(file)}, true);`,
      "m.exports.main(['log', 'list', '--help'], m.exports.systemContext()).then((c) => { process.exitCode = c; });",
    ].join('\n');
    const r = await spawnNode(['-e', script], { env: { PATH: process.env.PATH ?? '', HOME: tempDir() } });
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('dist/cli-keys.cjs holds the noun keys only, not ../commands/log/index.js');
    expect(r.code).not.toBe(0);
  });

  it('LIC_DEBUG=1 runs dist/cli.cjs, whose stack traces point at its lines (a noun bundle is one line of code)', async () => {
    const args = ['keys', 'list', '--base-url', 'http://127.0.0.1:9', '--retries', '0'];
    const plain = await spawnLic(args);
    expect(plain.code).toBe(5);
    expect(plain.stderr).not.toMatch(/\bat /);
    const debug = await spawnLic(args, { env: { LIC_DEBUG: '1' } });
    expect(debug.code).toBe(5);
    expect(debug.stderr.split('\n')[0]).toBe(plain.stderr.split('\n')[0]);
    const frames = [...debug.stderr.matchAll(/dist\/(cli[^:]*\.cjs):(\d+):\d+/g)];
    expect(frames.length).toBeGreaterThan(0);
    for (const [, file, line] of frames) {
      expect(file).toBe('cli.cjs');
      expect(Number(line)).toBeGreaterThan(1);
    }
  });

  describe('against the demo service', () => {
    let svc: TestService;
    let env: Record<string, string>;
    beforeAll(async () => {
      svc = await startTestService({ seed: 'demo' });
      env = { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey, LIC_CONFIG_DIR: tempDir() };
    });
    afterAll(() => svc.close());

    it.each([
      [['keys', 'list', '-o', 'json']],
      [['log', 'list', '--level', 'Warning', '-o', 'csv']],
      [['resources', 'list']],
      [['assemblies', 'list', '-o', 'ndjson']],
      [['templates', 'list', '-o', 'yaml']],
      [['orders', 'list', '--customer', '1', '-o', 'json']],
      [['state', 'export']],
      [['keys', 'lsit']],
      [['log', 'list', '--level', 'Loud']],
      [['-o', 'json', 'keys', 'list']],
      [['--profile=none', 'keys', 'list']],
      [['-q', '--timeout', '5s', 'templates', 'list', '-o', 'ndjson']],
    ])('lic %j prints what the whole CLI prints, with its exit code', async (args) => {
      const [own, all] = await Promise.all([spawnLic(args, { env }), spawnWholeCli(args, env)]);
      expect(own.stdout).toBe(all.stdout);
      expect(own.stderr).toBe(all.stderr);
      expect(own.code).toBe(all.code);
      expect(own.stdout.length + own.stderr.length).toBeGreaterThan(0);
    });
  });
});
