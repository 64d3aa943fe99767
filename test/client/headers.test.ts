/**
 * One header builder: a dry run prints exactly the headers the real request sends (the
 * key redacted to its prefix). The real request's headers are read off the wire by a
 * socket-level fake (the service does not echo them); undici's own framing headers (host,
 * connection, content-length) are the only ones the plan does not show.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, type RequestOptions } from '../../src/client/request.js';
import { describeRequest } from '../../src/client/dry-run.js';
import { maskApiKey } from '../../src/wire.js';
import { runCli } from '../helpers/cli.js';
import { reply, startFake, type Fake } from '../helpers/fake-server.js';

const KEY = 'api_abcdefghijklmnopqrstuvwx';
const OK = JSON.stringify({ success: true, code: 0, message: 'OK' });
/** What undici adds to every request by itself: framing, not ours to show. */
const FRAMING = ['host', 'connection', 'content-length'];

let fake: Fake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** `received` without undici's framing headers, and with the key masked as a plan shows it. */
function asPlanned(received: Record<string, string>): Record<string, string> {
  const h = Object.fromEntries(Object.entries(received).filter(([k]) => !FRAMING.includes(k)));
  if (h['x-api-key']) h['x-api-key'] = maskApiKey(h['x-api-key']);
  return h;
}

describe('a dry run shows the headers the real request sends', () => {
  const cases: [string, string, RequestOptions][] = [
    ['POST with a body', 'POST', { body: { apiKey: { permissions: 3 } } }],
    ['DELETE without a body', 'DELETE', { query: { deleteAll: true } }],
    [
      'extra headers: they replace accept and content-type, reserved ones are dropped',
      'PUT',
      {
        body: { a: 1 },
        headers: {
          'Accept-Language': 'de',
          accept: 'application/problem+json',
          'content-type': 'application/merge-patch+json',
          'X-API-Key': 'api_otherotherotherotherother',
          host: 'evil.example',
          connection: 'close',
          'transfer-encoding': 'chunked',
          'content-length': '1',
        },
      },
    ],
  ];

  it.each(cases)('%s', async (_name, method, o) => {
    fake = await startFake((s) => reply(s, 200, OK));
    const client = new ApiClient({ baseUrl: fake.url, apiKey: KEY, userAgent: 'lic/9.9.9', retries: 0 });
    try {
      const plan = describeRequest(client, method, '/v1/things', o);
      await client.request(method, '/v1/things', o);
      const received = fake.requests[0]!.headers;
      expect(asPlanned(received)).toEqual(plan.headers);
      // the plan never carries the key, the wire always does
      expect(JSON.stringify(plan)).not.toContain(KEY);
      expect(received['x-api-key']).toBe(KEY);
      // nothing a caller passed overrides what the transport frames
      expect(received.host).toBe(new URL(fake.url).host);
      expect(received['transfer-encoding']).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('lic api -H … --dry-run prints what lic api -H … sends', async () => {
    fake = await startFake((s) => reply(s, 200, OK));
    const args = ['api', '-X', 'PUT', '/v1/resources', '--input', '-', '-H', 'Accept-Language: de', '-H', 'X-Trace-Id: t1'];
    const o = { env: { LIC_BASE_URL: fake.url, LIC_API_KEY: KEY }, stdin: '{"resource":{"id":1,"name":"n"}}' };
    const dry = await runCli([...args, '--dry-run'], o);
    expect(dry.code, dry.stderr).toBe(0);
    expect(fake.requests).toHaveLength(0);
    const sent = await runCli(args, o);
    expect(sent.code, sent.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout) as { headers: Record<string, string> };
    expect(plan.headers).toEqual(asPlanned(fake.requests[0]!.headers));
    expect(plan.headers).toMatchObject({ 'accept-language': 'de', 'x-trace-id': 't1', 'x-api-key': maskApiKey(KEY) });
  });
});
