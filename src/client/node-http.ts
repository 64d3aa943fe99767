/**
 * The plain case of a request, through Node's own node:http: an http:// service, no proxy,
 * no extra CA. node:http parses replies with Node's built-in llhttp (C++), already part of
 * Node's start-up snapshot, where npm undici is ~570 KB of JavaScript to load plus a
 * WebAssembly parser to compile: `lic keys list` starts ~20 ms sooner this way
 * (bench/startup.md). Proxies, custom CAs and https:// keep undici (transport.ts).
 *
 * Only what sendOnce and probe ask of a dispatcher is here: `request()` resolving with the
 * status, the headers and the body (an async iterable of Buffers that `discard` can
 * destroy), and `destroy()` for the keep-alive pool. Failures keep the codes undici gives
 * the same fault (network-errors.ts names them): ECONNREFUSED, ENOTFOUND, ECONNRESET (a
 * reset, also mid-body); a connection closed in order before the whole body arrived fails
 * the body with Node's ECONNRESET "aborted" (reply.ts: closedEarly).
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

/** One request as sendOnce and probe give it (the shape of undici's `dispatcher.request()` options they use). */
export interface PlainRequest {
  origin: string;
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
}

/** A reply: status, headers (lower-case names) and the body as it streams in. */
export interface PlainReply {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: IncomingMessage;
}

/**
 * A keep-alive pool of node:http connections (up to 8 per origin: `log stats` keeps 6
 * requests in flight and doctor 4, which one connection would serialise; idle ones never
 * hold the process open), with the request method sendOnce and probe call. Deadlines are
 * the caller's (its AbortSignal), as with undici.
 */
export class NodeHttpDispatcher {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 8 });

  /** Sends one request; resolves when the status line and headers arrived. */
  request(o: PlainRequest): Promise<PlainReply> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${o.origin}${o.path}`, { method: o.method, headers: o.headers, agent: this.agent, signal: o.signal });
      req.once('error', reject);
      req.once('response', (res) => {
        // after the headers a failure belongs to the body's reader: a socket error (a reset)
        // fails the body with itself; an orderly close before the end fails it with Node's
        // "aborted" (which comes after the socket's error, and then changes nothing)
        req.removeListener('error', reject);
        req.on('error', (e) => res.destroy(e));
        resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res });
      });
      req.end(o.body);
    });
  }

  /** Ends every pooled connection, idle or in use. */
  async destroy(): Promise<void> {
    this.agent.destroy();
  }
}
