/**
 * State files of a hostile shape (issue 33): an alias bomb is exit 2 naming file and line
 * (not a drift of exit 1); a file of thousands of bad records lists ten, counts the rest
 * and stops checking at the 100th. Nothing reaches a service: the URL is a closed port.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { closedPort } from '../../helpers/fake-server.js';

const dir = tempDir('lic-state-limits-');
let env: Record<string, string>;
beforeAll(async () => {
  env = { LIC_BASE_URL: `http://127.0.0.1:${await closedPort()}`, LIC_API_KEY: 'api_000000000000000000000000' };
});

describe('state files of a hostile shape', () => {
  it('an alias bomb: diff --exit-code is exit 2 naming the file and the line where the aliases multiply', async () => {
    const file = join(dir, 'bomb.yaml');
    const levels = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const lines = ['version: 1', 'a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < levels.length; i++)
      lines.push(
        `${levels[i]}: &${levels[i]} [${Array(9)
          .fill(`*${levels[i - 1]}`)
          .join(',')}]`,
      );
    lines.push('keys: [*g]');
    writeFileSync(file, lines.join('\n') + '\n');
    const r = await runCli(['diff', '-f', file, '--exit-code'], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `lic: invalid state file; nothing was sent:\n  ${file}:4: an alias stands for more than 100 nodes (anchors and aliases nested to multiply a document): not a state file\n`,
    );
  });

  it('5,000 bad records: ten listed, the rest counted, checking stopped at the 100th problem', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'version: 1\nkeys:\n' + '- {name: a, ownerId: b, permissions: 1, color: red}\n'.repeat(5000));
    const r = await runCli(['diff', '-f', file], { env });
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(12);
    expect(lines[1]).toBe(
      `  ${file}:3: keys[0].color: unknown field (fields: name, ownerId, permissions, description, expireDate, revoked)`,
    );
    expect(lines[11]).toBe('  … and 90 more (stopped checking after 100 problems)');
  });

  it('a block-style file of many records (read in batches): problems name the right line across batches', async () => {
    const file = join(dir, 'many.yaml');
    // 3,000 keys of 5 lines each (~330 KB: several batches), record 2,500 with an unknown field, record 2,900 named as record 10
    const recs: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const name = i === 2900 ? 'key-10' : `key-${i}`;
      recs.push(
        `  - name: ${name}\n    ownerId: admin\n    permissions: 1\n    description: "record ${i}, padded to fill a batch sooner"${i === 2500 ? '\n    color: red' : ''}\n`,
      );
    }
    writeFileSync(file, `# a comment\nversion: 1\nkeys:\n${recs.join('')}`);
    // record i starts on line 4 + 4 i (+1 after record 2,500, which has 5 lines)
    const lineOf = (i: number) => 4 + 4 * i + (i > 2500 ? 1 : 0);
    const r = await runCli(['diff', '-f', file], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      'lic: invalid state file; nothing was sent:\n' +
        `  ${file}:${lineOf(2500) + 4}: keys[2500].color: unknown field (fields: name, ownerId, permissions, description, expireDate, revoked)\n` +
        `  ${file}:${lineOf(2900)}: keys[2900]: key-10 is already on line ${lineOf(10)}; a state file names each record once\n`,
    );
  });
});
