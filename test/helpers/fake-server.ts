/**
 * Socket-level fakes for faults a real service can't produce on demand (resets, slow or
 * malformed replies): a node:net server on 127.0.0.1:0 that hands each parsed request to
 * a script. Never a stand-in for the real service's behaviour.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';

export interface FakeRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** 0-based index of this request on this fake */
  n: number;
}

export interface Fake {
  url: string;
  /** every request received, in order */
  requests: FakeRequest[];
  /** TCP connections accepted */
  connections: number;
  close(): Promise<void>;
}

/** Listens on `host`:0 (any free port) and resolves with the port it got; for every test server and proxy here. */
export async function listenOnFreePort(
  server: { listen(port: number, host: string, cb: () => void): unknown; address(): unknown },
  host = '127.0.0.1',
): Promise<number> {
  await new Promise<void>((r) => server.listen(0, host, r));
  const addr = server.address();
  return typeof addr === 'object' && addr ? (addr as { port: number }).port : 0;
}

/** Writes a complete HTTP/1.1 reply and closes the connection. */
export function reply(socket: Socket, status: number, body: string, headers: Record<string, string> = {}): void {
  const h = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), connection: 'close', ...headers };
  socket.end(
    `HTTP/1.1 ${status} X\r\n${Object.entries(h)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\r\n')}\r\n\r\n${body}`,
  );
}

/**
 * Starts a fake whose `script` answers each request however it likes (or not at all).
 * `host`: the address to listen on (default 127.0.0.1), e.g. a non-loopback one from nonLoopbackAddress().
 */
export async function startFake(script: (socket: Socket, req: FakeRequest) => void, o: { host?: string } = {}): Promise<Fake> {
  const host = o.host ?? '127.0.0.1';
  const requests: FakeRequest[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString('latin1').split('\r\n');
        const [method = '', path = ''] = head[0]!.split(' ');
        const headers: Record<string, string> = {};
        for (const line of head.slice(1)) {
          const i = line.indexOf(':');
          headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
        }
        const len = Number(headers['content-length'] ?? 0);
        if (buf.length < end + 4 + len) return;
        const body = buf.subarray(end + 4, end + 4 + len).toString('utf8');
        buf = buf.subarray(end + 4 + len);
        const req = { method, path, headers, body, n: requests.length };
        requests.push(req);
        script(socket, req);
      }
    });
  });
  const port = await listenOnFreePort(server, host);
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    requests,
    get connections() {
      return connections;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** An IPv4 address of this machine that is not loopback (to reach a fake by a non-loopback address), or undefined. */
export function nonLoopbackAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((a) => a && !a.internal && a.family === 'IPv4')?.address;
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listenOnFreePort(server, '127.0.0.1');
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
