/**
 * A real forward HTTP proxy on 127.0.0.1:0 (node:http) that counts what goes through it:
 * CONNECT tunnels (what lic uses for https:// targets) and absolute-form requests
 * (`GET http://host/path`, what lic and curl send for http:// targets), forwarded to
 * their target. Either can be refused, as real proxies do: Squid's default answers a
 * CONNECT to a port other than 443 with an error, and a tunnel-only proxy answers a
 * plain request with one.
 */
import { createServer, request, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { listenOnFreePort } from './fake-server.js';

export interface TestProxy {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `host:port` of each CONNECT, in order */
  tunnels: string[];
  /** `METHOD absolute-url` of each plain forwarded request, in order */
  forwarded: string[];
  /** `host:port` of each CONNECT refused (`tunnel: false`) */
  refusedTunnels: string[];
  /** `METHOD absolute-url` of each plain request refused (`forward: false`) */
  refusedForwards: string[];
  close(): Promise<void>;
}

export interface TestProxyOptions {
  /** false: CONNECT is answered `501 Not Implemented` (a proxy that does not tunnel); default true */
  tunnel?: boolean;
  /** false: absolute-form requests are answered `405 Method Not Allowed` (a proxy that only tunnels); default true */
  forward?: boolean;
  /** forwarded replies start this many ms late (a slow link) */
  delayMs?: number;
}

/** Starts the proxy; close() ends every tunnel and the listener. */
export async function startProxy(o: TestProxyOptions = {}): Promise<TestProxy> {
  const refusedTunnels: string[] = [];
  const refusedForwards: string[] = [];
  const tunnels: string[] = [];
  const forwarded: string[] = [];
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  const server: Server = createServer((req, res) => {
    if (o.forward === false) {
      refusedForwards.push(`${req.method} ${req.url}`);
      res.writeHead(405, { 'content-type': 'text/plain', connection: 'close' }).end('this proxy only tunnels (CONNECT)\n');
      return;
    }
    forwarded.push(`${req.method} ${req.url}`);
    const u = new URL(req.url ?? '/');
    const up = request({ host: u.hostname, port: u.port, method: req.method, path: u.pathname + u.search, headers: req.headers }, (r) => {
      const reply = () => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      };
      if (o.delayMs) setTimeout(reply, o.delayMs);
      else reply();
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.on('connection', track);
  server.on('connect', (req, client: Socket, head: Buffer) => {
    if (o.tunnel === false) {
      refusedTunnels.push(req.url ?? '');
      client.end('HTTP/1.1 501 Not Implemented\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    tunnels.push(req.url ?? '');
    const i = (req.url ?? '').lastIndexOf(':');
    const upstream = connect(Number(req.url!.slice(i + 1)), req.url!.slice(0, i).replace(/^\[|\]$/g, ''), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    track(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  const port = await listenOnFreePort(server);
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    forwarded,
    refusedTunnels,
    refusedForwards,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
