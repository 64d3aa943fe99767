/**
 * The completion scripts tried in the real shells: bash (the function `complete -p lic`
 * names, its COMPREPLY), zsh (the script's `_lic` with compadd/_describe captured) and
 * fish (`complete -C`). `lic` is put on PATH as a wrapper around bin/lic.js, and profile
 * names come from a profile store in LIC_CONFIG_DIR through that `lic`. Each shell's
 * tests skip, saying so, when the shell is not installed (.ci/run installs them).
 * Assertions name a few commands and flags, not the full lists, so new commands don't break them.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/cli.js';
import { BIN, LIC_NODE, spawnLic } from '../../helpers/spawn.js';

const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
const HAS = { bash: has('bash'), zsh: has('zsh'), fish: has('fish') };
for (const [shell, ok] of Object.entries(HAS))
  if (!ok) console.warn(`completion tests for ${shell} skipped: ${shell} is not installed (apt-get install ${shell})`);

let env: Record<string, string>;
const script: Record<string, string> = {};

beforeAll(async () => {
  const bin = tempDir('lic-completion-bin-');
  writeFileSync(join(bin, 'lic'), `#!/bin/sh\nexec "${LIC_NODE}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'lic'), 0o755);
  const home = tempDir('lic-completion-home-');
  env = {
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    LIC_CONFIG_DIR: join(home, 'config'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
  };
  for (const name of ['staging', 'prod-eu']) {
    const r = await spawnLic(['profile', 'add', name, '--base-url', 'http://127.0.0.1:9', '--api-key-stdin'], {
      env,
      stdin: 'api_completiontest0000000000',
    });
    expect(r.code).toBe(0);
  }
  for (const shell of ['bash', 'zsh', 'fish']) {
    const dir = tempDir('lic-completion-script-');
    const r = spawnSync('lic', ['completion', shell], { env, encoding: 'utf8' });
    expect(r.status).toBe(0);
    script[shell] = join(dir, shell === 'zsh' ? '_lic' : `lic.${shell}`);
    writeFileSync(script[shell]!, r.stdout);
  }
});

const lines = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

describe.skipIf(!HAS.bash)('bash', () => {
  /** Completes the last word of `line` (split on spaces; a trailing space = an empty word) the way readline would. */
  const complete = (line: string): string[] => {
    const words = line.split(' ');
    const prog = `
      source ${JSON.stringify(script.bash)}
      spec=$(complete -p lic) || exit 9
      fn=\${spec##*-F }; fn=\${fn%% *}
      COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
      COMP_LINE=${JSON.stringify(line)}; COMP_POINT=\${#COMP_LINE}
      "$fn" lic "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
      printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', prog], { env, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    return lines(r.stdout);
  };

  it('the script registers a function for lic', () => {
    const r = spawnSync('bash', ['--norc', '-c', `source ${JSON.stringify(script.bash)}; complete -p lic`], { env, encoding: 'utf8' });
    expect(r.stdout).toMatch(/complete .*-F _lic lic/);
  });
  it('lic k<TAB> → keys', () => expect(complete('lic k')).toEqual(['keys']));
  it('lic keys <TAB> → its verbs', () =>
    expect(complete('lic keys ')).toEqual(expect.arrayContaining(['list', 'create', 'update', 'delete'])));
  it('lic log list --level <TAB> → the log levels', () =>
    expect(complete('lic log list --level ')).toEqual(['Verbose', 'Debug', 'Information', 'Warning', 'Error', 'Fatal']));
  it('lic keys list -o <TAB> → the output formats', () =>
    expect(complete('lic keys list -o ')).toEqual(expect.arrayContaining(['table', 'json', 'ndjson', 'csv', 'tsv'])));
  it('lic keys list --profile <TAB> → the profile names from the store', () =>
    expect(complete('lic keys list --profile ').sort()).toEqual(['prod-eu', 'staging']));
});

describe.skipIf(!HAS.zsh)('zsh', () => {
  /** Runs the script's _lic with `words`/CURRENT as zsh's completion system sets them; compadd and _describe print what they are given. */
  const complete = (line: string): string[] => {
    const words = line.split(' ');
    const prog = `
      compdef() { :; }
      compadd() { while [[ $1 == -* ]]; do [[ $1 == -- ]] && { shift; break; }; shift; done; print -l -- "$@"; }
      _describe() { local -a arr; arr=("\${(@P)2}"); local x; for x in "\${arr[@]}"; do print -r -- "\${x%%:*}"; done; }
      source ${JSON.stringify(script.zsh)}
      words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}
      _lic`;
    const r = spawnSync('zsh', ['-f', '-c', prog], { env, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const cur = words[words.length - 1]!;
    // compadd/_describe get every candidate; zsh filters by the prefix typed
    return lines(r.stdout).filter((w) => w.startsWith(cur));
  };

  it('lic k<TAB> → keys', () => expect(complete('lic k')).toEqual(['keys']));
  it('lic keys <TAB> → its verbs', () =>
    expect(complete('lic keys ')).toEqual(expect.arrayContaining(['list', 'create', 'update', 'delete'])));
  it('lic log list --level <TAB> → the log levels', () =>
    expect(complete('lic log list --level ')).toEqual(['Verbose', 'Debug', 'Information', 'Warning', 'Error', 'Fatal']));
  it('lic keys list -o <TAB> → the output formats', () =>
    expect(complete('lic keys list -o ')).toEqual(['table', 'json', 'ndjson', 'csv', 'tsv']));
  it('lic keys list --profile <TAB> → the profile names from the store', () =>
    expect(complete('lic keys list --profile ').sort()).toEqual(['prod-eu', 'staging']));
});

describe.skipIf(!HAS.fish)('fish', () => {
  /** fish's own completion engine: `complete -C LINE`, candidates without their descriptions. */
  const complete = (line: string): string[] => {
    const r = spawnSync('fish', ['--no-config', '-c', `source ${JSON.stringify(script.fish)}; complete -C ${JSON.stringify(line)}`], {
      env,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    return lines(r.stdout).map((l) => l.split('\t')[0]!);
  };

  it('lic k<TAB> → keys', () => expect(complete('lic k')).toEqual(['keys']));
  it('lic keys <TAB> → its verbs', () =>
    expect(complete('lic keys ')).toEqual(expect.arrayContaining(['list', 'create', 'update', 'delete'])));
  it('lic log list --level <TAB> → the log levels', () =>
    expect(complete('lic log list --level ').sort()).toEqual(['Debug', 'Error', 'Fatal', 'Information', 'Verbose', 'Warning']));
  it('lic keys list -o <TAB> → the output formats', () =>
    expect(complete('lic keys list -o ').sort()).toEqual(['csv', 'json', 'ndjson', 'table', 'tsv']));
  it('lic keys list --profile <TAB> → the profile names from the store', () =>
    expect(complete('lic keys list --profile ').sort()).toEqual(['prod-eu', 'staging']));
  it("lic keys list --<TAB> → keys list's flags, not those of another noun's list", () => {
    const flags = complete('lic keys list --');
    expect(flags).toEqual(expect.arrayContaining(['--active', '--where']));
    expect(flags).not.toContain('--level'); // log list's
    expect(flags).not.toContain('--customer'); // orders list's
  });
});
