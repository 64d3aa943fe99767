// Cross-cutting: which success notes go to stderr, in a pipe and on a terminal, over the write verbs; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * Success notes (docs/output-and-scripts.md, "What goes to stderr"), through the built CLI:
 * in a pipe, as cron runs it, a command that worked writes nothing to stderr (`state export`,
 * `resources export`, `keys update`); warnings still do; `-v` brings the notes back; on a
 * pseudo-terminal the notes are there, also when stdout is redirected (`lic state export >
 * f.yaml` at a prompt says what it wrote). `lic serve`'s start text and the keys it shows
 * once are printed off a terminal too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { http, startTestService, type TestService } from '../helpers/service.js';
import { hasScript, spawnLic, spawnLicTty, startLic } from '../helpers/spawn.js';

if (!hasScript) console.warn('test/cli/success-notes.test.ts: util-linux `script` not found; the terminal half is skipped');

let svc: TestService;
let env: Record<string, string>;
let keyId: number;
beforeAll(async () => {
  svc = await startTestService();
  env = { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey, LIC_CONFIG_DIR: tempDir(), NO_COLOR: '1' };
  const res = await http(svc, 'POST', '/v1/resources', {
    key: svc.adminKey,
    body: { resource: { name: 'terms', code: 'TERMS', type: 'Text', dataFormat: 'txt', data: Buffer.from('hello').toString('base64') } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const key = await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { name: 'ci', permissions: 1 } } });
  keyId = key.body.apiKeyId;
});
afterAll(() => svc?.close());

describe('in a pipe (cron, scripts): success is silent', () => {
  it('state export, resources export, keys update: the data on stdout, nothing on stderr, exit 0', async () => {
    const state = await spawnLic(['state', 'export'], { env });
    expect(state.code, state.stderr).toBe(0);
    expect(state.stdout).toContain('code: TERMS');
    expect(state.stderr).toBe('');
    const res = await spawnLic(['resources', 'export'], { env });
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout.trim()).code).toBe('TERMS');
    expect(res.stderr).toBe('');
    const upd = await spawnLic(['keys', 'update', String(keyId), '--name', 'ci-renamed'], { env });
    expect(upd.code, upd.stderr).toBe(0);
    expect(upd.stdout).toBe('');
    expect(upd.stderr).toBe('');
    const none = await spawnLic(['keys', 'list', '--owner', 'no-such-user'], { env });
    expect(none.code).toBe(0);
    expect(none.stderr).toBe('');
  });

  it('warnings and errors stay: a key shown once, a failure', async () => {
    const created = await spawnLic(['keys', 'create', '--perm', 'read', '--name', 'shown-once'], { env });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toBe('Store this API key now: it will not be shown again.\n');
    const failed = await spawnLic(['keys', 'update', '424242', '--name', 'x'], { env });
    expect(failed.code).toBe(4);
    expect(failed.stderr).toMatch(/^lic: no API key with id 424242/);
  });

  it('-v brings the notes back (beside the request trace)', async () => {
    const upd = await spawnLic(['-v', 'keys', 'update', String(keyId), '--name', 'ci-again'], { env });
    expect(upd.code, upd.stderr).toBe(0);
    expect(upd.stderr).toContain(`Updated API key ${keyId}.\n`);
    const state = await spawnLic(['state', 'export', '--verbose'], { env });
    expect(state.stderr).toMatch(/Exported 1 resource\(s\), 0 assemblies, \d+ API key\(s\)\./);
  });

  it("lic serve's start text, with the keys shown once, is printed off a terminal too", async () => {
    const p = startLic(['serve', '--port', '0', '--db', join(tempDir(), 'lic.db')], { env: { LIC_CONFIG_DIR: tempDir() } });
    try {
      const url = (await p.waitForStdout(/^(http:\/\/\S+)\n/))[1]!;
      await p.waitForStderr(/listening on/);
      expect(p.stderr).toContain('lic serve: new database ');
      expect(p.stderr).toMatch(
        /lic serve: new API keys, shown this once:\n {2}ROLE +USER +KEY\n {2}Administrator +admin +api_[a-z0-9]{24}\n/,
      );
      expect(p.stderr).toContain('lic serve: back up ');
      expect(p.stderr).toContain(`lic serve: Ctrl-C stops it; listening on ${url}\n`);
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });
});

describe.skipIf(!hasScript)('on a terminal: the notes are there', () => {
  const screen = (output: string) => output.replace(/\r/g, '');

  it('keys update and state export say what they did', async () => {
    const upd = await spawnLicTty(['keys', 'update', String(keyId), '--name', 'on-a-tty'], { env });
    expect(upd.code).toBe(0);
    expect(screen(upd.output)).toBe(`Updated API key ${keyId}.\n`);
    const state = await spawnLicTty(['state', 'export'], { env });
    expect(state.code).toBe(0);
    expect(screen(state.output)).toMatch(/\nExported 1 resource\(s\), 0 assemblies, \d+ API key\(s\)\.\n$/);
  });

  it('stdout redirected to a file at a prompt: the note still reaches the person (stderr is the terminal)', async () => {
    const file = join(tempDir(), 'state.yaml');
    const r = await spawnLicTty(['state', 'export'], { env, pipeTo: `cat > '${file}'` });
    expect(r.code).toBe(0);
    expect(screen(r.output)).toMatch(/^Exported 1 resource\(s\), 0 assemblies, \d+ API key\(s\)\.\n$/);
    expect(readFileSync(file, 'utf8')).toContain('code: TERMS');
  });

  it('-q silences them on a terminal too', async () => {
    const upd = await spawnLicTty(['-q', 'keys', 'update', String(keyId), '--name', 'quiet'], { env });
    expect(upd.code).toBe(0);
    expect(screen(upd.output)).toBe('');
  });
});
