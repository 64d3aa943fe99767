// Cross-cutting: --all of any list through a real pipe (early close, slow reader); a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * The real bin/lic with a real pipe: `lic log list --all | head -1`-style early close
 * must end the command quietly with exit 0 (no crash, no stack trace, no hang), and a
 * slow reader must still get every record (backpressure). Needs `npm run build` (npm test does).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, LIC_NODE } from '../../helpers/spawn.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { insertLog } from './harness.js';

const DIST = fileURLToPath(new URL('../../../dist/cli.cjs', import.meta.url));
let svc: TestService;
let env: Record<string, string>;

beforeAll(async () => {
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run \`npm run build\` first (npm test does)`);
  svc = await startTestService();
  env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey };
  insertLog(svc.db, 5000);
});
afterAll(async () => {
  await svc?.close();
});

function lic(args: string[], onStdout: (chunk: Buffer, child: ReturnType<typeof spawn>) => void) {
  return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(LIC_NODE, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.stdout!.on('data', (d: Buffer) => onStdout(d, child));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('--all through a real pipe', () => {
  it('the reader going away early ends it quietly, exit 0', async () => {
    const r = await lic(['log', 'list', '--all', '-o', 'ndjson'], (_d, child) => child.stdout!.destroy());
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('a slow reader gets every record, in order', async () => {
    let out = '';
    const r = await lic(['log', 'list', '--all', '-o', 'ndjson'], (d, child) => {
      out += d;
      // read slowly: pause after every chunk, so the child's writes hit a full pipe
      child.stdout!.pause();
      setTimeout(() => child.stdout!.resume(), 2);
    });
    expect(r.code).toBe(0);
    const ids = out
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: number }).id);
    const want = svc.db.prepare('SELECT id FROM log ORDER BY id DESC').pluck().all();
    expect(ids).toEqual(want);
  });
});
