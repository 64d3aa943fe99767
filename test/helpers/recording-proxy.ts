/**
 * A recording reverse proxy (node:http on 127.0.0.1:0) in front of a real service: it
 * forwards every request unchanged and records its method and path, so a test can show
 * which requests the CLI really sent (e.g. that a dry run or `lic doctor` sent no write).
 * With `fail`, the requests it picks get a canned error reply instead of reaching the
 * service (a real refusal of one step, e.g. the PUT of `keys rotate`), and are recorded too.
 * With `lose`, the requests it picks do reach the service, but their reply is replaced by a
 * 500: a reply lost after the service acted (e.g. a key created whose secret never arrives).
 */
import { createServer, request } from 'node:http';
import { listenOnFreePort } from './fake-server.js';

export interface RecordingProxy {
  url: string;
  /** `METHOD /path?query` of every request forwarded, in order */
  seen: string[];
  close(): Promise<void>;
}

/** A canned reply for a request the proxy does not forward: status and JSON body. */
export interface FailReply {
  status: number;
  body: unknown;
}

/** Starts a proxy forwarding to `target` (an http:// origin); `fail` may answer a request itself (`METHOD /path?query` → reply, or undefined to forward). */
export async function startRecordingProxy(
  target: string,
  o: { fail?: (request: string) => FailReply | undefined; lose?: (request: string) => boolean } = {},
): Promise<RecordingProxy> {
  const seen: string[] = [];
  const t = new URL(target);
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const canned = o.fail?.(`${req.method} ${req.url}`);
    if (canned) {
      req.resume();
      res.writeHead(canned.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(canned.body));
      return;
    }
    const lost = o.lose?.(`${req.method} ${req.url}`) === true;
    const up = request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      if (lost) {
        r.resume();
        r.on('end', () => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ success: false, code: 13, message: 'reply lost (injected)' }));
        });
        return;
      }
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
