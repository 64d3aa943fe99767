// Cross-cutting: every flag that reads a file or stdin stops one byte past its limit; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * Bounded reads: `/dev/zero` as a file or as stdin, through the real bin/lic,
 * stops one byte past each flag's limit and exits 2 naming the flag, with nothing sent.
 * Every run is under a kill timer; a read that did not stop would be killed (signal, no
 * exit code) and fail here. Pointed at a closed port: had anything been sent, the exit
 * would be 5. In-process runs check the same limits through the test Context.
 */
import { execFile } from 'node:child_process';
import { closeSync, mkdirSync, openSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_INPUT_BYTES } from '../../src/commands/api/index.js';
import { MAX_DATA_BYTES, MAX_PASSWORD_BYTES } from '../../src/commands/resources/input.js';
import { MAX_API_KEY_BYTES } from '../../src/commands/profile/add.js';
import { MAX_CA_FILE_BYTES } from '../../src/cli/files.js';
import { MAX_SEED_BYTES } from '../../src/server/index.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { closedPort } from '../helpers/fake-server.js';
import { BIN, LIC_NODE } from '../helpers/spawn.js';

let env: Record<string, string>;
const dir = tempDir('lic-bounded-');
beforeAll(async () => {
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    LIC_BASE_URL: `http://127.0.0.1:${await closedPort()}`,
    LIC_API_KEY: 'api_000000000000000000000000',
    LIC_CONFIG_DIR: join(dir, 'config'),
  };
  mkdirSync(join(dir, 'config'));
  writeFileSync(join(dir, 'key.txt'), 'api_000000000000000000000000\n');
});

/** `lic ARGS [< stdinFile]` in bash, killed after 30 s (then code is null). */
function lic(
  args: string[],
  stdinFile?: string,
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = `exec ${[LIC_NODE, BIN, ...args].map(quote).join(' ')}${stdinFile ? ` < ${quote(stdinFile)}` : ''}`;
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      { env: { ...env, ...extraEnv }, timeout: 30_000, killSignal: 'SIGKILL', maxBuffer: 1 << 20 },
      (e, stdout, stderr) => resolve({ code: e ? ((e as { code?: number | null }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

describe('/dev/zero through the real bin/lic: exit 2 naming the flag, nothing sent', () => {
  it.each([
    [
      '--data-file /dev/zero',
      ['resources', 'create', '--name', 'z', '--type', 'x', '--data-file', '/dev/zero'],
      undefined,
      `lic: --data-file /dev/zero: more than the limit of ${MAX_DATA_BYTES} bytes`,
    ],
    [
      '--data-file - < /dev/zero',
      ['resources', 'create', '--name', 'z', '--type', 'x', '--data-file', '-'],
      '/dev/zero',
      `lic: --data-file -: more than the limit of ${MAX_DATA_BYTES} bytes`,
    ],
    [
      'resources update --data-file /dev/zero',
      ['resources', 'update', '1', '--data-file', '/dev/zero'],
      undefined,
      'lic: --data-file /dev/zero: more than the limit',
    ],
    [
      '--password-stdin < /dev/zero',
      ['resources', 'create', '--name', 'z', '--type', 'x', '--password-stdin'],
      '/dev/zero',
      `lic: --password-stdin: more than ${MAX_PASSWORD_BYTES} bytes on stdin`,
    ],
    [
      'api --input - < /dev/zero',
      ['api', '/v1/log', '--input', '-'],
      '/dev/zero',
      `lic: --input -: more than ${MAX_INPUT_BYTES} bytes (10 MiB`,
    ],
    [
      'api --input /dev/zero',
      ['api', '/v1/log', '--input', '/dev/zero'],
      undefined,
      `lic: --input /dev/zero: more than ${MAX_INPUT_BYTES} bytes`,
    ],
    [
      'profile add --api-key-stdin < /dev/zero',
      ['profile', 'add', 'z', '--base-url', 'http://127.0.0.1:1', '--api-key-stdin'],
      '/dev/zero',
      `lic: --api-key-stdin: more than ${MAX_API_KEY_BYTES} bytes on stdin`,
    ],
    [
      'assemblies create --from-dll /dev/zero',
      ['assemblies', 'create', '--from-dll', '/dev/zero'],
      undefined,
      'lic: --from-dll /dev/zero: more than the limit of 268435456 bytes (256 MiB)',
    ],
  ])('%s', async (_name, args, stdin, message) => {
    const r = await lic(args, stdin);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.startsWith(message), r.stderr).toBe(true);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
  });

  it('the profile store is left as it was (no profile z)', async () => {
    const r = await lic(['profile', 'list', '-o', 'json']);
    expect(r.stdout).not.toContain('"z"');
  });
});

describe('files lic reads besides the data flags: /dev/zero and a 3 GiB sparse file stop at the limit', () => {
  // a sparse file: gigabytes by its size, none on disk; an unbounded read would fill memory until V8 gave up
  const sparse = join(dir, 'sparse');
  beforeAll(() => {
    closeSync(openSync(sparse, 'w'));
    truncateSync(sparse, 3 * 1024 ** 3);
  });

  it.each([
    [
      '--ca-file /dev/zero',
      ['keys', 'list', '--ca-file', '/dev/zero'],
      {},
      `lic: --ca-file /dev/zero: more than the limit of ${MAX_CA_FILE_BYTES} bytes (4 MiB)`,
    ],
    [
      '--ca-file SPARSE',
      ['keys', 'list', '--ca-file', 'SPARSE'],
      {},
      `lic: --ca-file SPARSE: more than the limit of ${MAX_CA_FILE_BYTES} bytes (4 MiB)`,
    ],
    [
      'profile add --ca-file /dev/zero',
      ['profile', 'add', 'z', '--base-url', 'https://127.0.0.1:1', '--ca-file', '/dev/zero', '--api-key-stdin'],
      {},
      `lic: --ca-file /dev/zero: more than the limit of ${MAX_CA_FILE_BYTES} bytes (4 MiB)`,
    ],
    [
      'NODE_EXTRA_CA_CERTS=/dev/zero with an https:// service',
      ['keys', 'list', '--base-url', 'https://127.0.0.1:1'],
      { NODE_EXTRA_CA_CERTS: '/dev/zero' },
      `lic: NODE_EXTRA_CA_CERTS /dev/zero: more than the limit of ${MAX_CA_FILE_BYTES} bytes (4 MiB)`,
    ],
  ])('%s: exit 2, one line naming it and the limit', async (_name, args, extraEnv, message) => {
    const r = await lic(
      args.map((a) => a.replace('SPARSE', sparse)),
      args.includes('--api-key-stdin') ? join(dir, 'key.txt') : undefined,
      extraEnv,
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(`${message.replace('SPARSE', sparse)}; a CA bundle is far smaller\n`);
    expect(r.stdout).toBe('');
  });

  it.each([
    ['/dev/zero', '/dev/zero'],
    ['a 3 GiB sparse file', 'SPARSE'],
  ])('lic serve --seed %s: exit 2 naming --seed and the limit, no V8 message', async (_name, file) => {
    const path = file.replace('SPARSE', sparse);
    const r = await lic(['serve', '--port', '0', '--db', ':memory:', '--no-profile', '--seed', path]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(`lic: --seed ${path}: more than the limit of ${MAX_SEED_BYTES} bytes (64 MiB)`);
    expect(r.stderr).not.toMatch(/Cannot create a string|ERR_STRING_TOO_LONG|\n\s+at /);
  });

  it('the profile store as a 3 GiB sparse file: exit 1 naming it and the limit', async () => {
    const configDir = join(dir, 'big-store');
    mkdirSync(configDir);
    closeSync(openSync(join(configDir, 'profiles.json'), 'w'));
    truncateSync(join(configDir, 'profiles.json'), 3 * 1024 ** 3);
    for (const args of [
      ['profile', 'list'],
      ['profile', 'add', 'x', '--base-url', 'http://127.0.0.1:1', '--api-key-stdin'],
    ]) {
      const r = await lic(args, args.includes('--api-key-stdin') ? join(dir, 'key.txt') : undefined, { LIC_CONFIG_DIR: configDir });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toBe(
        `lic: the profile store ${join(configDir, 'profiles.json')} is more than the limit of 1048576 bytes (1 MiB); fix or remove it\n`,
      );
    }
  });

  it("lic serve with a 3 GiB sparse file as the database's key file: exit 1 naming it and the limit", async () => {
    const data = join(dir, 'serve-data');
    mkdirSync(data);
    closeSync(openSync(join(data, 'lic.db.key'), 'w'));
    truncateSync(join(data, 'lic.db.key'), 3 * 1024 ** 3);
    const r = await lic(['serve', '--port', '0', '--db', join(data, 'lic.db'), '--no-profile']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe(
      `lic: the key file ${join(data, 'lic.db.key')} is more than the limit of 4096 bytes (4 KiB); it holds 32 bytes as base64 or hex\n`,
    );
  });
});

describe('the same limits in-process: exactly at the limit passes the size check, one byte more does not', () => {
  it('--password-stdin: 4097 bytes refused, 4096 accepted; --api-key-stdin 4097 refused; --input file over 10 MiB refused', async () => {
    const cenv = { LIC_BASE_URL: env.LIC_BASE_URL!, LIC_API_KEY: env.LIC_API_KEY! };
    const pw = await runCli(['resources', 'create', '--name', 'z', '--type', 'x', '--password-stdin'], {
      env: cenv,
      stdin: 'p'.repeat(MAX_PASSWORD_BYTES + 1),
    });
    expect(pw.code).toBe(2);
    expect(pw.stderr).toContain('--password-stdin: more than 4096 bytes');
    // at the limit it passes the guards and is sent: the closed port makes that exit 5
    const atLimit = await runCli(['resources', 'create', '--name', 'z', '--type', 'x', '--password-stdin'], {
      env: cenv,
      stdin: 'p'.repeat(MAX_PASSWORD_BYTES),
    });
    expect(atLimit.code, atLimit.stderr).toBe(5);
    const key = await runCli(['profile', 'add', 'k', '--base-url', 'http://127.0.0.1:1', '--api-key-stdin'], {
      stdin: 'a'.repeat(MAX_API_KEY_BYTES + 1),
    });
    expect(key.code).toBe(2);
    expect(key.stderr).toContain('--api-key-stdin: more than 4096 bytes');
    const big = join(dir, 'big.json');
    writeFileSync(big, `"${'x'.repeat(MAX_INPUT_BYTES - 1)}"`);
    const input = await runCli(['api', '/v1/log', '-X', 'POST', '--input', big], { env: cenv });
    expect(input.code).toBe(2);
    expect(input.stderr).toContain(`--input ${big}: more than ${MAX_INPUT_BYTES} bytes`);
  });
});
