/**
 * `lic serve` as a real process: URL on stdout, keys on stderr, profile `local`, reuse of
 * a database, a busy port, and SIGTERM/SIGINT finishing an in-flight request before a
 * clean exit 0.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/cli.js';
import { http } from '../../helpers/service.js';
import { spawnLic, startLic } from '../../helpers/spawn.js';

const URL_LINE = /^(http:\/\/127\.0\.0\.1:(\d+))\n/;
const KEY_LINE = /^ {2}Administrator +admin +(api_[a-z0-9]{24})$/m;

/** Starts `lic serve --port 0 ...` and waits for its URL. */
async function serve(extra: string[], env: Record<string, string>) {
  const p = startLic(['serve', '--port', '0', ...extra], { env });
  const m = await p.waitForStdout(URL_LINE);
  return { p, url: m[1]!, port: Number(m[2]) };
}

/**
 * Opens a raw connection and sends a POST whose body is held back, so the request is in
 * flight; `finish()` sends the rest and resolves with the raw reply.
 */
async function inFlightPost(url: string, key: string) {
  const { hostname, port } = new URL(url);
  const body = JSON.stringify({ apiKey: { name: 'in-flight', permissions: 1 } });
  const socket = connect(Number(port), hostname);
  await new Promise<void>((r) => socket.once('connect', () => r()));
  let reply = '';
  socket.on('data', (d) => (reply += d));
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  socket.write(
    `POST /v1/api-keys HTTP/1.1\r\nhost: ${hostname}\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
  );
  return {
    /** sends the rest; resolves with the reply and whether the server then closed the connection (within 5 s) */
    async finish() {
      socket.write(body.slice(10));
      const wasClosed = await Promise.race([closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5000))]);
      socket.destroy();
      return { reply, closed: wasClosed };
    },
  };
}

describe('lic serve (spawned)', () => {
  it('URL alone on stdout, key on stderr, profile local saved 0600 as the default; SIGTERM after an in-flight request: exit 0', async () => {
    const configDir = tempDir();
    const db = join(tempDir(), 'lic.db');
    const { p, url } = await serve(['--db', db, '--log-requests'], { LIC_CONFIG_DIR: configDir });
    const store = JSON.parse(readFileSync(join(configDir, 'profiles.json'), 'utf8'));
    expect(store).toEqual({
      profiles: { local: { baseUrl: url, apiKey: expect.stringMatching(/^api_[a-z0-9]{24}$/) } },
      defaultProfile: 'local',
    });
    expect(statSync(join(configDir, 'profiles.json')).mode & 0o777).toBe(0o600);
    const key = store.profiles.local.apiKey as string;
    expect(p.stderr.match(KEY_LINE)?.[1]).toBe(key);
    expect(p.stdout).toBe(`${url}\n`);
    // another lic finds the service through the saved profile alone
    const list = await spawnLic(['keys', 'list'], { env: { LIC_CONFIG_DIR: configDir } });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^1\tbootstrap\tadmin\t7 rwd\t/);

    const req = await inFlightPost(url, key);
    await p.waitForStderr(/"method":"POST","url":"\/v1\/api-keys".*"msg":"incoming request"/); // the service has the request
    p.child.kill('SIGTERM');
    await p.waitForStderr(/SIGTERM: finishing/);
    const { reply, closed } = await req.finish();
    expect(reply).toMatch(/^HTTP\/1\.1 200 /);
    expect(reply).toMatch(/\r\nconnection: close\r\n/i);
    expect(reply).toMatch(/"apiKeyId":2/);
    expect(closed).toBe(true);
    const done = await p.exited;
    expect(done.code).toBe(0);
    expect(done.signal).toBeNull();
    expect(done.stdout).toBe(`${url}\n`);
    expect(done.stderr).toContain('lic serve: SIGTERM: finishing in-flight requests and closing the database');
    expect(done.stderr).not.toMatch(/\n\s+at /);
    // request logs (--log-requests) went to stderr and never carry the key
    expect(done.stderr).toMatch(/"msg":"request completed"/);
    expect(done.stderr.split(key).length).toBe(2); // only the line that showed it once

    // a second start on the same database: no new key, the first still works, the in-flight write was kept
    const again = await serve(['--db', db, '--no-profile'], { LIC_CONFIG_DIR: tempDir() });
    const keys = await http({ url: again.url }, 'GET', '/v1/api-keys', { key });
    expect(keys.body.apiKeys.map((k: { name: string }) => k.name)).toEqual(['bootstrap', 'in-flight']);
    again.p.child.kill('SIGINT');
    const second = await again.p.exited;
    expect(second.code).toBe(0);
    expect(second.stderr).not.toMatch(/api_[a-z0-9]{24}/);
    expect(second.stderr).toContain('existing database');
  });

  it('SIGINT after an in-flight request: the request completes, exit 0', async () => {
    const { p, url } = await serve(['--db', ':memory:', '--no-profile', '--log-requests'], { LIC_CONFIG_DIR: tempDir() });
    const key = p.stderr.match(KEY_LINE)![1]!;
    const req = await inFlightPost(url, key);
    await p.waitForStderr(/"method":"POST".*"msg":"incoming request"/);
    p.child.kill('SIGINT');
    await p.waitForStderr(/SIGINT: finishing/);
    const { reply, closed } = await req.finish();
    expect(reply).toMatch(/^HTTP\/1\.1 200 [\s\S]*"apiKeyId":2/);
    expect(closed).toBe(true);
    const done = await p.exited;
    expect(done.code).toBe(0);
    expect(done.stderr).toContain('lic serve: SIGINT: finishing');
  });

  it('--no-profile saves nothing', async () => {
    const configDir = tempDir();
    const { p } = await serve(['--db', ':memory:', '--no-profile'], { LIC_CONFIG_DIR: configDir });
    expect(p.stderr).toMatch(KEY_LINE);
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    expect(existsSync(join(configDir, 'profiles.json'))).toBe(false);
  });

  it('a second lic serve on a database another one serves: refused naming its process and URL, exit 1; profile "local" stays; after a SIGKILL the next start serves it', async () => {
    const configDir = tempDir();
    const dir = tempDir();
    const db = join(dir, 'lic.db');
    const env = { LIC_CONFIG_DIR: configDir };
    const first = await serve(['--db', db], env);
    let next: Awaited<ReturnType<typeof serve>> | undefined;
    try {
      const profile = () => JSON.parse(readFileSync(join(configDir, 'profiles.json'), 'utf8')).profiles.local;
      const key = profile().apiKey as string;
      const r = await spawnLic(['serve', '--port', '0', '--db', db], { env });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `lic: the database ${db} is already served by lic serve process ${first.p.child.pid} at ${first.url}: use that one, stop it first, or choose another --db\n`,
      );
      // profile "local" still points at the first service, and every command still reaches it
      expect(profile()).toEqual({ baseUrl: first.url, apiKey: key });
      const list = await spawnLic(['keys', 'list'], { env });
      expect(list.code, list.stderr).toBe(0);
      // killed without a chance to clean up: its lock files stay, but the kernel let its lock go with it
      first.p.child.kill('SIGKILL');
      await first.p.exited;
      expect(existsSync(`${db}.lock`)).toBe(true);
      expect(JSON.parse(readFileSync(`${db}.lock.json`, 'utf8'))).toMatchObject({ pid: first.p.child.pid, url: first.url });
      next = await serve(['--db', db], env);
      expect(next.p.stderr).toContain('existing database');
      expect(profile().baseUrl).toBe(next.url);
      expect((await spawnLic(['keys', 'list'], { env })).code).toBe(0);
      expect(JSON.parse(readFileSync(`${db}.lock.json`, 'utf8'))).toMatchObject({ pid: next.p.child.pid, url: next.url });
      next.p.child.kill('SIGTERM');
      expect((await next.p.exited).code).toBe(0);
      // a clean stop removes the lock and its side file
      expect(existsSync(`${db}.lock`)).toBe(false);
      expect(existsSync(`${db}.lock.json`)).toBe(false);
    } finally {
      first.p.child.kill('SIGKILL');
      next?.p.child.kill('SIGKILL');
    }
  });

  it('a second lic serve on a busy port: a clear error, exit 1, nothing on stdout', async () => {
    const { p, port } = await serve(['--db', ':memory:', '--no-profile'], { LIC_CONFIG_DIR: tempDir() });
    try {
      const r = await spawnLic(['serve', '--port', String(port), '--db', ':memory:'], { env: { LIC_CONFIG_DIR: tempDir() } });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`lic: port ${port} on 127.0.0.1 is already in use; choose another with --port (0 = any free port)\n`);
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });
});
