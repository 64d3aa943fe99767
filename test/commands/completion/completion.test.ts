import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

const FILES = { bash: 'lic.bash', zsh: '_lic', fish: 'lic.fish' } as const;

describe('lic completion', () => {
  for (const [shell, file] of Object.entries(FILES)) {
    it(`${shell}: the committed completions/${file} is what the CLI generates (run npm run completions)`, async () => {
      const r = await runCli(['completion', shell]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(readFileSync(new URL(`../../../completions/${file}`, import.meta.url), 'utf8'));
    });
  }

  it('rejects an unknown shell with exit 2 naming the choices', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bash, zsh, fish/);
  });

  it('bash: completes nouns, verbs and option values', async () => {
    const script = (await runCli(['completion', 'bash'])).stdout;
    const complete = (words: string[]) => {
      const cmd = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _lic; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const r = spawnSync('bash', ['-c', cmd], { encoding: 'utf8' });
      expect(r.status).toBe(0);
      return r.stdout.trim().split('\n');
    };
    expect(complete(['lic', 'ke'])).toEqual(['keys']);
    expect(complete(['lic', 'keys', ''])).toEqual(expect.arrayContaining(['list', 'create', 'update', 'delete']));
    expect(complete(['lic', 'keys', 'create', '--pe'])).toEqual(['--perm']);
    expect(complete(['lic', 'log', 'list', '-o', ''])).toEqual(expect.arrayContaining(['table', 'json']));
  });
});
