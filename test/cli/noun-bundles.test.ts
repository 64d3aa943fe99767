// Cross-cutting: a command line that starts with a noun runs from that noun's own bundle (dist/cli-NOUN.cjs) and prints what the whole CLI prints; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * scripts/build.mjs writes, besides dist/cli.cjs (the whole CLI), one bundle per noun:
 * dist/cli-NOUN.cjs, the whole CLI without the other nouns' modules. bin/lic.js runs it for a
 * command line whose first word is NOUN (dist/version.json `nouns`), and dist/cli.cjs for
 * any other (a root flag first, `help`, `completion`, a typo). Both must print the same: a
 * root flag first (`--no-color`, which changes nothing in a pipe) runs the same command line
 * through dist/cli.cjs. test/cli/startup-guard.test.ts checks which file each one loads.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../src/cli/context.js';
import { NOUNS } from '../../src/cli/program.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { spawnLic, spawnNode } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const meta = JSON.parse(readFileSync(join(ROOT, 'dist/version.json'), 'utf8')) as { nouns: string[] };

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
      const [own, whole] = await Promise.all([spawnLic(args), spawnLic(['--no-color', ...args])]);
      expect(own.stderr, args.join(' ')).toBe(whole.stderr);
      expect(own.stdout, args.join(' ')).toBe(whole.stdout);
      expect(own.stdout, args.join(' ')).toContain(`lic ${noun}`);
      expect([own.code, whole.code], args.join(' ')).toEqual([0, 0]);
    }
  }, 120_000);

  it("a bundle that is asked for another noun says so: an internal error naming both, not another noun's output", async () => {
    // bin/lic.js never does this; the bundle's own main() with another noun's command line
    const script = `const b = require(${JSON.stringify(join(ROOT, 'dist/cli-keys.cjs'))}); b.main(['log', 'list', '--help'], b.systemContext()).then((c) => { process.exitCode = c; });`;
    const r = await spawnNode(['-e', script], { env: { PATH: process.env.PATH ?? '', HOME: tempDir() } });
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('dist/cli-keys.cjs holds the noun keys only, not ../commands/log/index.js');
    expect(r.code).not.toBe(0);
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
    ])('lic %j prints what the whole CLI prints, with its exit code', async (args) => {
      const [own, whole] = await Promise.all([spawnLic(args, { env }), spawnLic(['--no-color', ...args], { env })]);
      expect(own.stdout).toBe(whole.stdout);
      expect(own.stderr).toBe(whole.stderr);
      expect(own.code).toBe(whole.code);
      expect(own.stdout.length + own.stderr.length).toBeGreaterThan(0);
    });
  });
});
