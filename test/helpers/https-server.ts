/**
 * A local HTTPS server with a certificate signed by a CA made for the test (openssl in a
 * temporary directory), for --ca-file and NODE_EXTRA_CA_CERTS tests. `makeTestCa()`
 * returns undefined when openssl is not installed, so tests can skip visibly.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { tempDir } from './cli.js';
import { listenOnFreePort } from './fake-server.js';

export interface TestCa {
  /** PEM file of the CA certificate */
  caFile: string;
  /** server certificate (SAN IP:127.0.0.1, DNS:localhost) and its key, PEM */
  cert: string;
  key: string;
}

/** True when the `openssl` command can be run. */
function haveOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A fresh CA and a server certificate it signed, valid two days; undefined without openssl. */
export function makeTestCa(): TestCa | undefined {
  if (!haveOpenssl()) return undefined;
  const dir = tempDir('lic-ca-');
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=lic test CA');
  run('req', ...ec, '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n');
  run(
    'x509',
    '-req',
    '-in',
    'srv.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'srv.pem',
    '-days',
    '2',
    '-extfile',
    'ext',
  );
  return { caFile: join(dir, 'ca.pem'), cert: readFileSync(join(dir, 'srv.pem'), 'utf8'), key: readFileSync(join(dir, 'srv.key'), 'utf8') };
}

export interface TestHttpsServer {
  /** `https://127.0.0.1:PORT` */
  url: string;
  /** `METHOD path` of every request received */
  requests: string[];
  close(): Promise<void>;
}

/** Starts an HTTPS server on 127.0.0.1:0 with the CA's server certificate, answering every request 200 with `body`. */
export async function startHttpsServer(ca: TestCa, body: string): Promise<TestHttpsServer> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer({ cert: ca.cert, key: ca.key }, (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // a client that rejects our certificate ends the handshake: not an error of the test server
  server.on('tlsClientError', () => undefined);
  const port = await listenOnFreePort(server);
  return {
    url: `https://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
