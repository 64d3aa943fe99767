// Cross-cutting: --all of any list fetches one page ahead; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * `--all` fetches one page ahead (src/cli/list/run.ts pages()): the real bin/lic against a
 * real `lic serve`, through a proxy (node:http, 127.0.0.1:0) that holds page requests for a
 * while, so one is in flight when the reader of the pipe goes away. That request must be
 * abandoned silently: exit 0, nothing on stderr (no retry notice), no second try of it.
 * And an error of the page fetched ahead surfaces after the pages before it, in order,
 * as it did when pages were fetched one after the other.
 */
import { createServer, request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { listenOnFreePort } from '../../helpers/fake-server.js';
import { licInBash } from '../../helpers/spawn.js';

import { insertLog } from './harness.js';
import { useService } from '../../helpers/fixtures.js';

const ENTRIES = 1000;
const TAKE = 50;

const { svc } = useService();
beforeAll(async () => {
  insertLog(svc.db, ENTRIES);
});

interface HoldingProxy {
  url: string;
  /** `GET /path?query` of every log page request, in order */
  seen: string[];
  /** the requests whose connection the client closed before the reply */
  abandoned: string[];
  close(): Promise<void>;
}

/**
 * A reverse proxy to the service that forwards the first log page at once and holds every
 * later one for `holdMs` (the reader has time to leave meanwhile); `fail(n)` may answer the
 * n-th page request (1-based) itself with a 400.
 */
async function startHoldingProxy(holdMs: number, fail?: (n: number) => boolean): Promise<HoldingProxy> {
  const seen: string[] = [];
  const abandoned: string[] = [];
  const t = new URL(svc.url);
  const server = createServer((req, res) => {
    const what = `${req.method} ${req.url}`;
    const n = req.url?.startsWith('/v1/log') ? seen.push(what) : 0;
    let replied = false;
    res.on('close', () => {
      if (!replied && !res.writableFinished) abandoned.push(what);
    });
    const forward = () => {
      if (res.destroyed) return;
      if (fail?.(n)) {
        replied = true;
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: false, code: 3, message: `page ${n} refused by the test` }));
        return;
      }
      const up = request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
        replied = true;
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      up.end();
    };
    req.resume();
    if (n <= 1) forward();
    else setTimeout(forward, holdMs);
  });
  const port = await listenOnFreePort(server);
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    abandoned,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Runs `bash -c 'set -o pipefail; lic ARGS | TAIL'` against `url`; the exit status is the pipeline's. */
function pipeline(url: string, args: string[], tail: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return licInBash(args, `| ${tail}`, {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    LIC_BASE_URL: url,
    LIC_API_KEY: svc.adminKey,
  });
}

describe('--all with a page fetched ahead', () => {
  it('| head -1: the request in flight when the pipe closes is abandoned silently (exit 0, empty stderr, no retry)', async () => {
    const proxy = await startHoldingProxy(300);
    try {
      const r = await pipeline(proxy.url, ['log', 'list', '--all', '--take', String(TAKE), '-o', 'ndjson'], 'head -1');
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout.split('\n')).toHaveLength(2);
      // let a retry (the old behaviour: a notice, then the same page again) show itself if there is one
      await new Promise((res) => setTimeout(res, 1200));
      // a page was asked for ahead and given up by the client before its reply ...
      expect(proxy.abandoned).toHaveLength(1);
      expect(proxy.abandoned[0]).toBe(proxy.seen.at(-1));
      // ... and never asked for again
      expect(new Set(proxy.seen).size).toBe(proxy.seen.length);
      expect(proxy.seen.length).toBeLessThan(ENTRIES / TAKE / 2);
    } finally {
      await proxy.close();
    }
  });

  it('the page after the current one is asked for before the current one is consumed (one request ahead, never more)', async () => {
    const proxy = await startHoldingProxy(50);
    try {
      const r = await pipeline(proxy.url, ['log', 'list', '--all', '--take', String(TAKE), '-o', 'ndjson', '-q'], 'cat');
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      const ids = r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: number }).id);
      expect(ids).toEqual(svc.db.prepare('SELECT id FROM log ORDER BY id DESC').pluck().all());
      // every page once (the last, short one included), nothing abandoned on a normal end
      expect(proxy.seen).toHaveLength(ENTRIES / TAKE + 1);
      expect(proxy.abandoned).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('an error of the page fetched ahead comes after every page before it, exit as before', async () => {
    const proxy = await startHoldingProxy(20, (n) => n === 3);
    try {
      const r = await pipeline(proxy.url, ['log', 'list', '--all', '--take', String(TAKE), '-o', 'ndjson', '-q'], 'cat');
      // pages 1 and 2 written whole, then the error of page 3 (an ApiError 400: usage, exit 2)
      const ids = r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: number }).id);
      expect(ids).toEqual(
        svc.db
          .prepare('SELECT id FROM log ORDER BY id DESC LIMIT ?')
          .pluck()
          .all(2 * TAKE),
      );
      expect(r.stderr).toBe('lic: page 3 refused by the test (HTTP 400, code 3, GET /v1/log)\n');
      expect(r.code).not.toBe(0);
      expect(proxy.seen).toHaveLength(3);
    } finally {
      await proxy.close();
    }
  });
});
