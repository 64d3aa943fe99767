/**
 * Bounded replies and protocol checks on writes (item 11), against
 * socket-level fakes: a reply over LIC_MAX_REPLY_BYTES, a body shorter than its
 * Content-Length, and insert replies without a usable id.
 */
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { reply, startFake, type Fake } from '../helpers/fake-server.js';

const KEY = 'api_abcdefghijklmnopqrstuvwx';
let fake: Fake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
const env = (f: { url: string }, extra: Record<string, string> = {}) => ({ LIC_BASE_URL: f.url, LIC_API_KEY: KEY, ...extra });
const list = (pad: number) => JSON.stringify({ success: true, apiKeys: [], note: 'x'.repeat(pad) });

describe('reply size cap (LIC_MAX_REPLY_BYTES, default 64 MiB)', () => {
  it('a Content-Length over the cap: exit 1 before reading the body', async () => {
    fake = await startFake((s) => reply(s, 200, list(5000)));
    const r = await runCli(['keys', 'list', '--retries', '0'], { env: env(fake, { LIC_MAX_REPLY_BYTES: '2K' }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^lic: the reply to GET \/v1\/api-keys is larger than 2048 bytes \(announced 50\d\d bytes\); stopped reading\. Ask for less \(--take, --fields\) or raise LIC_MAX_REPLY_BYTES\n$/,
    );
    expect(r.stdout).toBe('');
  });

  it('a chunked reply that keeps coming: reading stops past the cap and the connection is dropped', async () => {
    let writer: Socket | undefined;
    let written = 0;
    fake = await startFake((s) => {
      writer = s;
      s.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
      const chunk = 'x'.repeat(1024);
      // an endless body: 1 KiB chunks until the client hangs up
      const t = setInterval(() => {
        if (s.destroyed || written > 1_000_000) return clearInterval(t);
        s.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
        written += chunk.length;
      }, 2);
    });
    const r = await runCli(['keys', 'list'], { env: env(fake, { LIC_MAX_REPLY_BYTES: '8192' }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'lic: the reply to GET /v1/api-keys is larger than 8192 bytes (kept sending); stopped reading. Ask for less (--take, --fields) or raise LIC_MAX_REPLY_BYTES\n',
    );
    // not retried: a too-large reply is not a transient failure
    expect(fake.requests).toHaveLength(1);
    await new Promise((res) => setTimeout(res, 50));
    expect(writer?.destroyed).toBe(true);
    expect(written).toBeLessThan(1_000_000);
  });

  it('a reply exactly at the cap is read; a bad LIC_MAX_REPLY_BYTES is exit 2 with nothing sent', async () => {
    const body = list(3000);
    fake = await startFake((s) => reply(s, 200, body));
    const ok = await runCli(['keys', 'list', '-o', 'json'], { env: env(fake, { LIC_MAX_REPLY_BYTES: String(Buffer.byteLength(body)) }) });
    expect(ok.code, ok.stderr).toBe(0);
    const bad = await runCli(['keys', 'list'], { env: env(fake, { LIC_MAX_REPLY_BYTES: 'lots' }) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('lic: LIC_MAX_REPLY_BYTES is invalid: expected a size of at least 1024 bytes, such as 67108864, 64M or 1G.\n');
    expect(fake.requests).toHaveLength(1);
  });
});

describe('a body shorter than its Content-Length', () => {
  it('says "closed before the whole body arrived", not "reset" (a POST: one attempt)', async () => {
    fake = await startFake((s) => {
      s.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"success":true,"apiKeyId":');
      s.end();
    });
    const r = await runCli(['keys', 'create', '--perm', '1'], { env: env(fake) });
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(`lic: connection to ${fake.url} closed before the whole body arrived (27 of 100 bytes)\n`);
    expect(fake.requests).toHaveLength(1);
  });

  it('a chunked body that ends without its last chunk says the same', async () => {
    fake = await startFake((s) => {
      s.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\na\r\n{"success"\r\n');
      setTimeout(() => s.end(), 20);
    });
    const r = await runCli(['keys', 'create', '--perm', '1'], { env: env(fake) });
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(`lic: connection to ${fake.url} closed before the whole body arrived (after 10 bytes)\n`);
  });
});

describe('insert replies must carry the new id (exit 1 otherwise)', () => {
  const created = (extra: object) => JSON.stringify({ success: true, code: 0, message: 'OK', ...extra });

  it.each([
    [{}, 'no "assemblyId"'],
    [{ assemblyId: 'nine' }, 'an invalid ("nine") "assemblyId"'],
    [{ assemblyId: 2.5 }, 'an invalid (2.5) "assemblyId"'],
    [{ assemblyId: '02' }, 'an invalid ("02") "assemblyId"'],
    [{ assemblyId: 0 }, 'an invalid (0) "assemblyId"'],
    [{ assemblyId: null }, 'an invalid (null) "assemblyId"'],
  ])('assemblies create, reply %j', async (extra, what) => {
    fake = await startFake((s) => reply(s, 200, created(extra)));
    const r = await runCli(['assemblies', 'create', '--name', 'MyLib', '--version', '1.0.0.0'], { env: env(fake) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `lic: the service replied to POST /v1/assemblies with ${what}: expected the new record's id, an integer 1..2147483647\n`,
    );
    expect(r.stdout).toBe('');
  });

  it('a canonical numeric string id ("2") is accepted and printed as a number', async () => {
    fake = await startFake((s) => reply(s, 200, created({ assemblyId: '2' })));
    const r = await runCli(['assemblies', 'create', '--name', 'MyLib', '-o', 'json'], { env: env(fake) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ assemblyId: 2 });
  });

  it('resources create without resourceId; keys create without its key', async () => {
    fake = await startFake((s, req) => reply(s, 200, req.path === '/v1/resources' ? created({}) : created({ apiKeyId: 5 })));
    const res = await runCli(['resources', 'create', '--name', 'n', '--type', 'email', '--format', 'html', '--data-file', '-'], {
      env: env(fake),
      stdin: '<p>x</p>',
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('lic: the service replied to POST /v1/resources with no "resourceId"');
    const key = await runCli(['keys', 'create', '--perm', '1'], { env: env(fake) });
    expect(key.code).toBe(1);
    expect(key.stderr).toBe('lic: the service replied to POST /v1/api-keys without the new "key"\n');
    expect(key.stdout).toBe('');
  });
});
