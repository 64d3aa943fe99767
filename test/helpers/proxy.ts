/**
 * A real forward HTTP proxy on 127.0.0.1:0 (node:http) that counts what goes through it:
 * CONNECT tunnels (what undici's ProxyAgent uses for http and https targets) and
 * absolute-form requests (`GET http://host/path`), forwarded to their target.
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
  close(): Promise<void>;
}

/** Starts the proxy; close() ends every tunnel and the listener. */
export async function startProxy(): Promise<TestProxy> {
  const tunnels: string[] = [];
  const forwarded: string[] = [];
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  const server: Server = createServer((req, res) => {
    forwarded.push(`${req.method} ${req.url}`);
    const u = new URL(req.url ?? '/');
    const up = request({ host: u.hostname, port: u.port, method: req.method, path: u.pathname + u.search, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.on('connection', track);
  server.on('connect', (req, client: Socket, head: Buffer) => {
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
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
