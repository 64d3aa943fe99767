/**
 * A recording reverse proxy (node:http on 127.0.0.1:0) in front of a real service: it
 * forwards every request unchanged and records its method and path, so a test can show
 * which requests the CLI really sent (e.g. that a dry run or `lic doctor` sent no write).
 */
import { createServer, request } from 'node:http';
import { listenOnFreePort } from './fake-server.js';

export interface RecordingProxy {
  url: string;
  /** `METHOD /path?query` of every request forwarded, in order */
  seen: string[];
  close(): Promise<void>;
}

/** Starts a proxy forwarding to `target` (an http:// origin). */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const seen: string[] = [];
  const t = new URL(target);
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const up = request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  const port = await listenOnFreePort(server);
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
