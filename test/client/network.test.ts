/**
 * Network settings and `lic api -H` (item 9): proxies from the context's
 * environment through a real local CONNECT proxy that counts its tunnels, TLS with a CA
 * made for the test (openssl; skipped visibly without it), the refusal to send a key over
 * plain http:// to a host that is not loopback, and extra request headers reaching a fake.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isLoopback } from '../../src/cli/runtime.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { closedPort, nonLoopbackAddress, reply, startFake, type Fake } from '../helpers/fake-server.js';
import { makeTestCa, startHttpsServer, type TestCa, type TestHttpsServer } from '../helpers/https-server.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';

import { useService } from '../helpers/fixtures.js';

const KEY = 'api_abcdefghijklmnopqrstuvwx';
const OK_LIST = JSON.stringify({ success: true, code: 0, message: 'OK', apiKeys: [], totalApiKeysCount: 0 });

let fake: Fake | undefined;
let proxy: TestProxy | undefined;
afterEach(async () => {
  await fake?.close();
  await proxy?.close();
  fake = proxy = undefined;
});

describe('proxies (HTTP_PROXY, HTTPS_PROXY, NO_PROXY from the environment)', () => {
  const { svc } = useService();

  it.each(['HTTP_PROXY', 'http_proxy'])('%s: requests to the service go through the proxy', async (name) => {
    proxy = await startProxy();
    const r = await runCli(['keys', 'list', '-o', 'json'], {
      env: { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey, [name]: proxy.url },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).apiKeys.length).toBeGreaterThan(0);
    // an http:// target as an absolute-form request, as curl sends it: no tunnel
    expect(proxy.forwarded).toEqual([`GET ${svc.url}/v1/api-keys`]);
    expect(proxy.tunnels).toEqual([]);
  });

  it('a forward proxy that refuses CONNECT (as Squid does for ports other than 443) serves an http:// service', async () => {
    proxy = await startProxy({ tunnel: false });
    const r = await runCli(['keys', 'list', '-o', 'json'], {
      env: { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey, HTTP_PROXY: proxy.url },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).apiKeys.length).toBeGreaterThan(0);
    expect(proxy.forwarded).toEqual([`GET ${svc.url}/v1/api-keys`]);
    expect(proxy.refusedTunnels).toEqual([]);
  });

  it('NO_PROXY naming the host bypasses the proxy', async () => {
    proxy = await startProxy();
    const r = await runCli(['keys', 'list'], {
      env: { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey, HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.tunnels).toEqual([]);
    expect(proxy.forwarded).toEqual([]);
  });

  it('a proxy that refuses connections is named as the culprit, not the service', async () => {
    const port = await closedPort();
    const r = await runCli(['keys', 'list', '--retries', '0'], {
      env: { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey, HTTPS_PROXY: 'http://127.0.0.1:1', HTTP_PROXY: `http://127.0.0.1:${port}` },
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(`lic: cannot connect to the proxy for ${svc.url}: connection refused (check HTTPS_PROXY / HTTP_PROXY)\n`);
  });

  it('no proxy variable: a direct connection', async () => {
    proxy = await startProxy();
    const r = await runCli(['keys', 'list'], { env: { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey } });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.tunnels).toEqual([]);
  });
});

describe('plain http:// to a host that is not loopback (the fake cases skipped without a non-loopback IPv4 address)', () => {
  // a fake on this machine's own non-loopback address: a real non-loopback target that answers
  const lan = nonLoopbackAddress();
  const refusal = (hostPort: string) =>
    `lic: refusing to send the API key over plain http:// to ${hostPort}, which is not a loopback address (anyone on the way could read it): use https://, or pass --insecure-http (or save it in the profile) if the network is trusted\n`;

  it('is refused with exit 2 before any connection, saying why', async () => {
    const r = await runCli(['keys', 'list'], { env: { LIC_BASE_URL: 'http://10.255.255.1:9', LIC_API_KEY: KEY } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(refusal('10.255.255.1:9'));
  });

  it('profile add of such a URL says at once that commands will refuse it', async () => {
    const r = await runCli(['profile', 'add', 'far', '--base-url', 'http://10.255.255.1:9', '--api-key-stdin'], { stdin: KEY });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('10.255.255.1:9 is not a loopback address: commands will refuse to send the key over plain http:// to it');
  });

  it.skipIf(!lan)('refused without --insecure-http (no connection), let through with it', async () => {
    fake = await startFake((s) => reply(s, 200, OK_LIST), { host: lan });
    const refused = await runCli(['keys', 'list'], { env: { LIC_BASE_URL: fake.url, LIC_API_KEY: KEY } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(refusal(new URL(fake.url).host));
    expect(fake.connections).toBe(0);
    const r = await runCli(['keys', 'list', '--insecure-http'], { env: { LIC_BASE_URL: fake.url, LIC_API_KEY: KEY } });
    expect(r.code, r.stderr).toBe(0);
    expect(fake.requests.map((q) => q.headers['x-api-key'])).toEqual([KEY]);
  });

  it.skipIf(!lan)('a profile saved with --insecure-http allows it; show says where from', async () => {
    fake = await startFake((s) => reply(s, 200, OK_LIST), { host: lan });
    const configDir = tempDir();
    const add = await runCli(['profile', 'add', 'lan', '--base-url', fake.url, '--insecure-http', '--api-key-stdin'], {
      configDir,
      stdin: KEY,
    });
    expect(add.code, add.stderr).toBe(0);
    const show = await runCli(['profile', 'show', '-o', 'json'], { configDir });
    expect(JSON.parse(show.stdout)).toMatchObject({ insecureHttp: true, insecureHttpFrom: 'profile lan' });
    const r = await runCli(['keys', 'list'], { configDir });
    expect(r.code, r.stderr).toBe(0);
    expect(fake.requests).toHaveLength(1);
  });

  it('loopback is 127.0.0.0/8, ::1 and localhost', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '[::1]', '::1', 'api.localhost'])
      expect(isLoopback(h), h).toBe(true);
    for (const h of ['10.0.0.1', '128.0.0.1', 'localhost.example.com', '[::2]', '127.0.0.1.nip.io', 'example.com'])
      expect(isLoopback(h), h).toBe(false);
  });
});

describe('TLS with a private CA (--ca-file, NODE_EXTRA_CA_CERTS; skipped when openssl is absent)', () => {
  const ca: TestCa | undefined = makeTestCa();
  let https: TestHttpsServer | undefined;
  beforeAll(async () => {
    if (ca) https = await startHttpsServer(ca, OK_LIST);
  });
  afterAll(async () => {
    await https?.close();
  });
  const env = (extra: Record<string, string> = {}) => ({ LIC_BASE_URL: https!.url, LIC_API_KEY: KEY, ...extra });

  it.skipIf(!ca)('an unknown CA: exit 5 saying the certificate is not trusted and what to pass; not retried', async () => {
    const before = https!.requests.length;
    const r = await runCli(['keys', 'list'], { env: env() });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(
      new RegExp(
        `^lic: the certificate of ${https!.url} is not trusted \\(\\w+\\): pass --ca-file PATH with the CA that signed it, or set NODE_EXTRA_CA_CERTS\\n$`,
      ),
    );
    expect(https!.requests.length).toBe(before);
  });

  it.skipIf(!ca)('--ca-file: trusted, the request arrives (the default CAs are kept too)', async () => {
    const before = https!.requests.length;
    const r = await runCli(['keys', 'list', '-o', 'json', '--ca-file', ca!.caFile], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${OK_LIST}\n`);
    expect(https!.requests.slice(before)).toEqual(['GET /v1/api-keys']);
  });

  it.skipIf(!ca)('NODE_EXTRA_CA_CERTS of the environment is honoured', async () => {
    const r = await runCli(['keys', 'list'], { env: env({ NODE_EXTRA_CA_CERTS: ca!.caFile }) });
    expect(r.code, r.stderr).toBe(0);
  });

  it.skipIf(!ca)('HTTPS through the proxy with --ca-file: one CONNECT tunnel', async () => {
    proxy = await startProxy();
    const r = await runCli(['keys', 'list', '--ca-file', ca!.caFile], { env: env({ HTTPS_PROXY: proxy.url }) });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.tunnels).toEqual([new URL(https!.url).host]);
  });

  it.skipIf(!ca)('HTTPS through a proxy that only tunnels: one CONNECT tunnel, no plain request', async () => {
    proxy = await startProxy({ forward: false });
    const r = await runCli(['keys', 'list', '--ca-file', ca!.caFile], { env: env({ HTTPS_PROXY: proxy.url }) });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.tunnels).toEqual([new URL(https!.url).host]);
    expect(proxy.refusedForwards).toEqual([]);
  });

  it.skipIf(!ca)('HTTPS through a proxy that refuses CONNECT: exit 5 naming the proxy and what it answered, not retried', async () => {
    proxy = await startProxy({ tunnel: false });
    const r = await runCli(['keys', 'list', '--ca-file', ca!.caFile], { env: env({ HTTPS_PROXY: proxy.url }) });
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(
      `lic: the proxy refused to open a tunnel to ${https!.url} (CONNECT answered HTTP 501): check HTTPS_PROXY, or name the host in NO_PROXY\n`,
    );
    expect(proxy.refusedTunnels).toEqual([new URL(https!.url).host]);
  });

  it.skipIf(!ca)('a CA file that is missing or not PEM: exit 2, nothing sent', async () => {
    const before = https!.requests.length;
    const missing = await runCli(['keys', 'list', '--ca-file', '/nonexistent/ca.pem'], { env: env() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('lic: --ca-file /nonexistent/ca.pem: no such file\n');
    const junk = join(tempDir(), 'junk.pem');
    writeFileSync(junk, 'hello');
    const notPem = await runCli(['keys', 'list', '--ca-file', junk], { env: env() });
    expect(notPem.code).toBe(2);
    expect(notPem.stderr).toBe(`lic: --ca-file ${junk}: no PEM certificate in it (expected -----BEGIN CERTIFICATE-----)\n`);
    expect(https!.requests.length).toBe(before);
  });

  it.skipIf(!ca)('a profile saved with --ca-file uses it', async () => {
    const configDir = tempDir();
    const add = await runCli(['profile', 'add', 'tls', '--base-url', https!.url, '--ca-file', ca!.caFile, '--api-key-stdin'], {
      configDir,
      stdin: KEY,
    });
    expect(add.code, add.stderr).toBe(0);
    const r = await runCli(['keys', 'list'], { configDir });
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('lic api -H', () => {
  it('adds request headers (repeatable); they may replace accept', async () => {
    fake = await startFake((s) => reply(s, 200, OK_LIST));
    const r = await runCli(
      ['api', '/v1/api-keys', '-H', 'Accept-Language: de', '-H', 'X-Trace-Id:  abc 1 ', '-H', 'accept: application/problem+json'],
      {
        env: { LIC_BASE_URL: fake.url, LIC_API_KEY: KEY },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const h = fake.requests[0]!.headers;
    expect(h['accept-language']).toBe('de');
    expect(h['x-trace-id']).toBe('abc 1');
    expect(h.accept).toBe('application/problem+json');
    expect(h['x-api-key']).toBe(KEY);
  });

  it.each([
    [
      'x-api-key: api_otherotherotherotherother',
      "lic: -H x-api-key: this header is set by lic itself and can't be replaced (the API key comes from the profile or LIC_API_KEY, never from the command line)\n",
    ],
    ['Host: evil.example', "lic: -H host: this header is set by lic itself and can't be replaced\n"],
  ])('-H %j is refused with exit 2, nothing sent, the value not echoed', async (h, message) => {
    fake = await startFake((s) => reply(s, 200, OK_LIST));
    const r = await runCli(['api', '/v1/api-keys', '-H', h], { env: { LIC_BASE_URL: fake.url, LIC_API_KEY: KEY } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(message);
    expect(fake.connections).toBe(0);
  });

  it('a malformed -H is a usage error naming the form', async () => {
    const r = await runCli(['api', '/v1/api-keys', '-H', 'no colon here'], { env: { LIC_API_KEY: KEY } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("expected 'Name: value'");
  });
});
