// Cross-cutting: a pipe reader going away early (EPIPE) ends any command quietly, and output that can't be written (a full disk) is one line and exit 1; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * `lic ... | head -1` under `set -o pipefail`: the real bin/lic in a real shell pipeline
 * against the real service. The reader going away (EPIPE) ends the command quietly with
 * exit 0, what was written is whole lines, and the listing stops early: a counting proxy
 * in front of the service shows far fewer page requests than the whole log needs. Output
 * to a full disk (`> /dev/full`, ENOSPC) is exit 1 with one line on stderr, no stack trace.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { licInBash } from '../helpers/spawn.js';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';

import { insertLog } from './list/harness.js';
import { useService } from '../helpers/fixtures.js';

const ENTRIES = 3000;
const TAKE = 50;
let proxy: RecordingProxy;
let proxyUrl: string;

const { svc } = useService();
beforeAll(async () => {
  insertLog(svc.db, ENTRIES);
  // counts the requests on their way to the real service; bodies pass through untouched
  proxy = await startRecordingProxy(svc.url);
  proxyUrl = proxy.url;
});
afterAll(async () => {
  await proxy?.close();
});

/** Runs `bash -c 'set -o pipefail; lic ARGS | READER'` (`head -1`); the exit status is the pipeline's. */
function pipeline(args: string[], reader = 'head -1'): Promise<{ code: number; stdout: string; stderr: string }> {
  return inBash(args, `| ${reader}`);
}

/** Runs `bash -c 'set -o pipefail; lic ARGS TAIL'` (`| head -1`, `> /dev/full`) against the counting proxy. */
function inBash(args: string[], tail: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return licInBash(args, tail, {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    LIC_BASE_URL: proxyUrl,
    LIC_API_KEY: svc.adminKey,
  });
}

describe('EPIPE: lic ... | head -1 under pipefail', () => {
  it('log list --all -o ndjson: exit 0, stderr empty, one whole record, stops fetching early', async () => {
    proxy.seen.length = 0;
    const r = await pipeline(['log', 'list', '--all', '--take', String(TAKE), '-o', 'ndjson']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toHaveProperty('id');
    const pages = proxy.seen.filter((p) => p.startsWith('GET /v1/log')).length;
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

describe('EPIPE before bin/lic.js writes a word (it writes with fs.writeSync, not through process.stdout)', () => {
  // `true` exits at once, long before node has started: the pipe has no reader when lic writes
  it.each([[['--version']], [['--help']], [['keys', '--help']]])('lic %j | true: exit 0, stderr empty', async (args) => {
    const r = await pipeline(args, 'true');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
  it('lic --version | cat: the version, whole', async () => {
    const r = await pipeline(['--version'], 'cat');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe.skipIf(!existsSync('/dev/full'))('a full disk: lic ... > /dev/full (ENOSPC)', () => {
  it.each([
    [['--version']],
    [['--help']],
    [['keys', 'list']],
    [['keys', 'list', '-o', 'csv']],
    [['log', 'list', '--all', '--take', String(TAKE), '-o', 'ndjson']],
  ])('lic %j: exit 1, one line naming the failure; a long listing stops fetching', async (args) => {
    proxy.seen.length = 0;
    const r = await inBash(args, '> /dev/full');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('lic: cannot write output: no space left on device\n');
    expect(proxy.seen.filter((p) => p.startsWith('GET /v1/log')).length).toBeLessThan(ENTRIES / TAKE / 2);
  });
});
