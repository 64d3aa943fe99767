/**
 * Input guards of `resources create|update` against the real service: an empty
 * data file or stdin (a cron line that lost its redirect) is a usage error unless
 * `--allow-empty`, and nothing is created or changed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';

import { useService } from '../../helpers/fixtures.js';

const dir = tempDir('lic-guard-');
const { svc, env } = useService();

const count = () => svc.db.prepare('SELECT count(*) FROM resources').pluck().get() as number;
const dataOf = (id: number) => svc.db.prepare('SELECT data FROM resources WHERE id = ?').pluck().get(id) as Buffer;

describe('empty data', () => {
  it('--data-file - with an empty stdin: exit 2, one line naming the flag and --allow-empty, nothing created', async () => {
    const before = count();
    const r = await runCli(['resources', 'create', '--name', 'cron', '--type', 'x', '--data-file', '-'], { env, stdin: '' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('lic: --data-file -: stdin is empty; nothing was sent (add --allow-empty to store empty data)\n');
    expect(count()).toBe(before);
  });

  it('an empty file too; on update the stored data stays', async () => {
    const empty = join(dir, 'empty.bin');
    writeFileSync(empty, '');
    const before = count();
    const c = await runCli(['resources', 'create', '--name', 'e1', '--type', 'x', '--data-file', empty], { env });
    expect(c.code).toBe(2);
    expect(c.stderr).toBe(`lic: --data-file ${empty}: the file is empty; nothing was sent (add --allow-empty to store empty data)\n`);
    expect(count()).toBe(before);
    const made = await runCli(['resources', 'create', '--name', 'e2', '--type', 'x', '--data-file', '-', '-o', 'json'], {
      env,
      stdin: 'payload',
    });
    const id = JSON.parse(made.stdout).resourceId as number;
    const u = await runCli(['resources', 'update', String(id), '--data-file', empty], { env });
    expect(u.code).toBe(2);
    expect(dataOf(id).toString()).toBe('payload');
  });

  it('--allow-empty stores empty data, on create and update', async () => {
    const c = await runCli(['resources', 'create', '--name', 'e3', '--type', 'x', '--data-file', '-', '--allow-empty', '-o', 'json'], {
      env,
      stdin: '',
    });
    expect(c.code, c.stderr).toBe(0);
    const id = JSON.parse(c.stdout).resourceId as number;
    expect(dataOf(id).length).toBe(0);
    writeFileSync(join(dir, 'full.bin'), 'x');
    await runCli(['resources', 'update', String(id), '--data-file', join(dir, 'full.bin')], { env });
    expect(dataOf(id).toString()).toBe('x');
    const u = await runCli(['resources', 'update', String(id), '--data-file', '-', '--allow-empty'], { env, stdin: '' });
    expect(u.code, u.stderr).toBe(0);
    expect(dataOf(id).length).toBe(0);
  });
});

describe('--data-out', () => {
  it('never onto a device: /dev/null is refused (the write renames over its target), exit 2, nothing sent', async () => {
    const r = await runCli(['resources', 'get', '1', '--data-out', '/dev/null'], {
      env: { LIC_BASE_URL: 'http://127.0.0.1:9', LIC_API_KEY: 'api_aaaaaaaaaaaaaaaaaaaaaaaa' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('lic: --data-out /dev/null: is not a regular file; use --data-out - and redirect stdout\n');
  });
});
