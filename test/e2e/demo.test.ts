/**
 * `npm run demo` (scripts/demo.mjs, on the built CLI): every command it prints can be
 * pasted into a shell and means what it ran; it says that what it shows is thrown away,
 * and keeps the service's own start-up text (keys, profile, ids to try) to itself.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/cli/table.js';

const DEMO = fileURLToPath(new URL('../../scripts/demo.mjs', import.meta.url));

/** The words bash makes of `line` (no expansion happens: the demo's words are literal). */
const bashWords = (line: string): string[] =>
  execFileSync('bash', ['-c', `set -- ${line}; printf '%s\\0' "$@"`], { encoding: 'utf8' })
    .split('\0')
    .slice(0, -1);

describe('npm run demo', () => {
  it('prints pasteable commands, says its service is thrown away, and nothing of the service it deletes', () => {
    const r = spawnSync(process.execPath, [DEMO], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' },
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const commands = r.stdout.split('\n').filter((l) => l.startsWith('$ lic '));
    expect(commands.length).toBeGreaterThan(5);
    const create = commands.find((l) => l.startsWith('$ lic keys create'))!;
    expect(bashWords(create.slice(2))).toEqual([
      'lic',
      'keys',
      'create',
      '--perm',
      '7',
      '--name',
      'demo-key',
      '--description',
      'made by npm run demo',
    ]);
    expect(bashWords(commands.find((l) => l.startsWith('$ lic keys update'))!.slice(2)).at(-1)).toBe('read-only now');
    expect(r.stdout).toMatch(/deleted when the demo ends/);
    expect(r.stdout).toMatch(/its service, database and profile are gone/);
    // the service's hints about keys, profile "local" and ids to try are about things deleted at the end
    expect(r.stdout + r.stderr).not.toContain('lic serve:');
    // its own words fit 80 columns (not the commands' output, nor the temporary directory's name)
    for (const l of r.stdout.split('\n').filter((x) => !x.includes('\t') && !x.includes('lic-demo-'))) {
      expect(displayWidth(l), l).toBeLessThanOrEqual(80);
    }
  });
});
