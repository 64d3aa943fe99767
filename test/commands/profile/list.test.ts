/**
 * `lic profile list` (alias ls) with a temporary store: piped, json and on a terminal, the
 * key always masked.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { threeProfiles, useTwoServices } from './_shared.js';

const { s1, s2 } = useTwoServices();
let dir: string;
beforeAll(async () => {
  dir = tempDir();
  await threeProfiles(dir, s1, s2);
});

describe('profile list', () => {
  it('list (piped): name, URL, masked key, default mark; never the full key', async () => {
    const r = await runCli(['profile', 'list'], { configDir: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `odd\thttps://licensing.example.com\t****\tfile\t`,
        `one\t${s1.url}\t${s1.adminKey.slice(0, 8)}…\tfile\t*`,
        `two\t${s2.url}\t${s2.adminKey.slice(0, 8)}…\tfile\t`,
      ].join('\n') + '\n',
    );
  });

  it('list -o json and on a TTY: masked too', async () => {
    const json = await runCli(['profile', 'list', '-o', 'json'], { configDir: dir });
    expect(JSON.parse(json.stdout).profiles).toEqual([
      { name: 'odd', baseUrl: 'https://licensing.example.com', apiKey: '****', keyStore: 'file', default: false },
      { name: 'one', baseUrl: s1.url, apiKey: `${s1.adminKey.slice(0, 8)}…`, keyStore: 'file', default: true },
      { name: 'two', baseUrl: s2.url, apiKey: `${s2.adminKey.slice(0, 8)}…`, keyStore: 'file', default: false },
    ]);
    const tty = await runCli(['profile', 'ls'], { configDir: dir, tty: true });
    for (const out of [json.stdout, tty.stdout, tty.stderr]) {
      expect(out).not.toContain(s1.adminKey);
      expect(out).not.toContain(s2.adminKey);
      expect(out).not.toContain('short');
    }
    expect(tty.stdout).toContain('API KEY');
  });
});
