/**
 * `lic ... | head -1` under `set -o pipefail`: the real bin/lic in a real shell pipeline
 * against the real service. The reader going away (EPIPE) ends the command quietly with
 * exit 0, what was written is whole lines, and the listing stops early: a counting proxy
 * in front of the service shows far fewer page requests than the whole log needs.
 */
import { execFile } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, buildDist } from '../helpers/spawn.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { insertLog } from './list/harness.js';

const ENTRIES = 3000;
const TAKE = 50;
let svc: TestService;
let proxy: Server;
let proxyUrl: string;
const paths: string[] = [];

beforeAll(async () => {
  await buildDist();
  svc = await startTestService();
  insertLog(svc.db, ENTRIES);
  const target = new URL(svc.url);
  // counts the requests on their way to the real service; bodies pass through untouched
  proxy = createServer((req, res) => {
    paths.push(req.url ?? '');
    const up = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
  await svc?.close();
});

/** Runs `bash -c 'set -o pipefail; lic ARGS | head -1'`; the exit status is the pipeline's. */
function pipeline(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = `set -o pipefail; ${[process.execPath, BIN, ...args].map(quote).join(' ')} | head -1`;
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LIC_BASE_URL: proxyUrl, LIC_API_KEY: svc.adminKey }, timeout: 30_000 },
      (e, stdout, stderr) => resolve({ code: e ? ((e as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
}

describe('EPIPE: lic ... | head -1 under pipefail', () => {
  it('log list --all -o ndjson: exit 0, stderr empty, one whole record, stops fetching early', async () => {
    paths.length = 0;
    const r = await pipeline(['log', 'list', '--all', '--take', String(TAKE), '-o', 'ndjson']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toHaveProperty('id');
    const pages = paths.filter((p) => p.startsWith('/v1/log')).length;
    expect(pages).toBeGreaterThan(0);
    // the whole log needs ENTRIES / TAKE = 60 pages; a reader that left after one line must not cost them all
    expect(pages).toBeLessThan(ENTRIES / TAKE / 2);
  });

  it('the piped table (TSV lines) ends the same way', async () => {
    const r = await pipeline(['log', 'list', '--all', '--take', String(TAKE)]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(2);
  });
});
