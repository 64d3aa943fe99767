/**
 * Every error in the envelope, including those made before any route runs — by Node's
 * HTTP parser (431, malformed requests), by fastify's router (414, a broken URL path), by
 * Node itself (no Host, an unknown Expect, CONNECT) and while shutting down (503) — sent
 * as raw bytes over a socket, so nothing tidies the request up on the way.
 */
import { connect, type Socket } from 'node:net';
import { maxHeaderSize } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReplies, rawExchange, type RawReply } from '../helpers/raw-http.js';
import { http, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

/** Asserts the envelope of contract §1 (JSON, success false, the code, a message without a stack) and returns the message. */
function envelope(r: RawReply, status: number, code: number): string {
  expect(r.status, r.body).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(r.body);
  expect(Object.keys(body).sort()).toEqual(['code', 'message', 'success']);
  expect(body).toMatchObject({ success: false, code });
  expect(body.message).not.toMatch(/\n\s+at |node_modules|FST_ERR|HPE_/);
  return body.message;
}

const req = (head: string, body = '') => `${head}\r\n\r\n${body}`;

describe('errors made before any route runs are in the envelope', () => {
  it.each([
    [
      'request line and headers over the limit: 431, code 8',
      req(`GET /v1/log HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(maxHeaderSize + 10)}`),
      431,
      8,
      `the request line and headers are larger than the limit of ${maxHeaderSize} bytes`,
    ],
    [
      'a URL over the header limit: 431, code 8',
      req(`GET /v1/log?filter=${'a'.repeat(maxHeaderSize + 10)} HTTP/1.1\r\nHost: x`),
      431,
      8,
      `the request line and headers are larger than the limit of ${maxHeaderSize} bytes`,
    ],
    [
      'a path segment over 1024 characters: 414, code 8',
      req(`DELETE /v1/resources/${'1'.repeat(2000)} HTTP/1.1\r\nHost: x`),
      414,
      8,
      `a segment of the path /v1/resources/${'1'.repeat(26)}… is longer than the limit of 1024 characters`,
    ],
    [
      'bad percent-encoding in the path (FST_ERR_BAD_URL): 400, code 3',
      req('GET /v1/resources/%zz HTTP/1.1\r\nHost: x'),
      400,
      3,
      'the path /v1/resources/%zz is not a valid URL path (bad percent-encoding)',
    ],
    ['not HTTP at all: 400, code 3', req('HELLO'), 400, 3, 'the request is not valid HTTP/1.1: Invalid method encountered'],
    [
      'an unknown HTTP version: 400, code 3',
      req('GET / HTTP/9.9\r\nHost: x'),
      400,
      3,
      'the request is not valid HTTP/1.1: Invalid HTTP version',
    ],
    [
      'a Content-Length that is not a number: 400, code 3',
      req('POST /v1/resources HTTP/1.1\r\nHost: x\r\nContent-Length: abc'),
      400,
      3,
      'the request is not valid HTTP/1.1: Invalid character in Content-Length',
    ],
    [
      'two Content-Lengths (request smuggling): 400, code 3',
      req('POST /v1/resources HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3', '{}'),
      400,
      3,
      'the request is not valid HTTP/1.1: Duplicate Content-Length',
    ],
    [
      'Content-Length with Transfer-Encoding (request smuggling): 400, code 3',
      req('POST /v1/resources HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked', '0\r\n\r\n'),
      400,
      3,
      "the request is not valid HTTP/1.1: Transfer-Encoding can't be present with Content-Length",
    ],
    [
      'a broken chunk size: 400, code 3',
      req(
        'POST /v1/resources HTTP/1.1\r\nHost: x\r\nx-api-key: KEY\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked',
        'zz\r\n',
      ),
      400,
      3,
      'the request is not valid HTTP/1.1: Invalid character in chunk size',
    ],
    [
      'a header name with a space: 400, code 3',
      req('GET /v1/log HTTP/1.1\r\nHost: x\r\nBad Header: y'),
      400,
      3,
      'the request is not valid HTTP/1.1: Invalid header token',
    ],
    [
      'the HTTP/2 preface: 400, code 3',
      'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
      400,
      3,
      'the request is not valid HTTP/1.1: Pause on PRI/Upgrade',
    ],
    ['HTTP/1.1 without Host: 400, code 3', req('GET /v1/log HTTP/1.1'), 400, 3, 'an HTTP/1.1 request needs a Host header'],
    [
      'an Expect other than 100-continue: 417, code 3',
      req('POST /v1/resources HTTP/1.1\r\nHost: x\r\nExpect: magic\r\nContent-Length: 2', '{}'),
      417,
      3,
      'Expect: magic is not supported (only 100-continue)',
    ],
    [
      'CONNECT: 404, code 5',
      req('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443'),
      404,
      5,
      'no such endpoint: CONNECT example.com:443',
    ],
  ])('%s', async (_name, bytes, status, code, message) => {
    // KEY: the request passes authentication, so the error is met while its route waits for the body
    const { text } = await rawExchange(svc.url, bytes.replace('KEY', svc.adminKey));
    const replies = parseReplies(text);
    expect(replies).toHaveLength(1);
    expect(envelope(replies[0]!, status, code)).toBe(message);
  });

  it('a malformed request pipelined after a good one: the good one is answered first, then the 400, then the connection closes', async () => {
    const { text, serverClosed } = await rawExchange(
      svc.url,
      `GET /v1/api-keys?take=0 HTTP/1.1\r\nHost: x\r\nx-api-key: ${svc.adminKey}\r\n\r\nBOGUS / HTTP/1.1\r\n\r\n`,
    );
    const replies = parseReplies(text);
    expect(replies.map((r) => r.status)).toEqual([200, 400]);
    expect(JSON.parse(replies[0]!.body)).toMatchObject({ success: true, totalApiKeysCount: 1 });
    envelope(replies[1]!, 400, 3);
    expect(serverClosed).toBe(true);
  });

  it('a request that does not arrive in time: 408, code 4, on the connection Node gave up on', async () => {
    // Node checks its request timeouts every 30 s; its clientError event with ERR_HTTP_REQUEST_TIMEOUT is what it then emits
    const serverSide = new Promise<Socket>((resolve) => svc.app.server.once('connection', resolve));
    const exchange = rawExchange(svc.url, 'GET /v1/log HTTP/1.1\r\nHost: x\r\n', 3000);
    const socket = await serverSide;
    svc.app.server.emit('clientError', Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
    const { text, serverClosed } = await exchange;
    expect(envelope(parseReplies(text)[0]!, 408, 4)).toBe('the request did not arrive in time; the connection is closed');
    expect(serverClosed).toBe(true);
  });
});

describe('shutting down', () => {
  it('a request that arrives while the service closes: 503, code 14, Retry-After, connection: close', async () => {
    const own = await startTestService();
    const { port } = new URL(own.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    let text = '';
    socket.on('data', (d) => (text += d));
    socket.on('error', () => {});
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    // a request under way (its headers not yet complete) keeps the connection from being closed as idle
    socket.write('GET /v1/log HTTP/1.1\r\nHost: x\r\n');
    // a whole round trip on another connection: by then the service has read those bytes
    expect((await http(own, 'GET', '/v1/log?take=0', { key: own.adminKey })).status).toBe(200);
    const closing = own.close();
    // the request is completed once the service is closing
    socket.end(`x-api-key: ${own.adminKey}\r\n\r\n`);
    await closed;
    await closing;
    const [reply] = parseReplies(text);
    expect(envelope(reply!, 503, 14)).toBe('the service is shutting down');
    expect(reply!.headers['retry-after']).toBe('1');
    expect(reply!.headers.connection).toBe('close');
  });
});
