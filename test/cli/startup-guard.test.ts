/**
 * The start-up guard of issue 9, not a timing assert: a short command must not load a
 * module it does not need. The built CLI is spawned with module hooks that record every
 * ES module file it loads (./startup-guard/record-loads.mjs); the esbuild metafile
 * (build/metafile.json, written by scripts/build.mjs) says which sources and packages went
 * into each of those files. Times themselves are measured by `npm run bench:startup`.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { BIN } from '../helpers/spawn.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HOOKS = pathToFileURL(join(ROOT, 'test/cli/startup-guard/record-loads.mjs')).href;
const REGISTER = `data:text/javascript,import { register } from 'node:module'; register(${JSON.stringify(HOOKS)});`;

/** What no short command may load: the service, the table, the profile writer, prompts, progress, CSV, the DLL reader, colour, TypeBox. */
const NEVER_AT_START = [
  'src/server/',
  'node_modules/fastify/',
  'node_modules/conf/',
  'node_modules/pe-library/',
  'src/dotnet/',
  'node_modules/@inquirer/',
  'node_modules/cli-progress/',
  'node_modules/csv-stringify/',
  'node_modules/chalk/',
  'node_modules/string-width/',
  'src/cli/table.ts',
  'node_modules/typebox/',
];
/** What `--help` needs neither: no HTTP client at all. */
const NO_CLIENT = ['node_modules/undici/', 'src/client/request.ts'];
/** The parts of undici a request does not need: its index, fetch, WebSocket, mocks, caches, the proxy agents. */
const NOT_FOR_A_REQUEST = [
  'node_modules/undici/index.js',
  // (lib/web/fetch/body.js and what it needs are in the file, not run: client-h1 requires them lazily, for FormData bodies)
  'node_modules/undici/lib/web/fetch/index.js',
  'node_modules/undici/lib/web/websocket/',
  'node_modules/undici/lib/web/eventsource/',
  'node_modules/undici/lib/mock/',
  'node_modules/undici/lib/cache/',
  'node_modules/undici/lib/dispatcher/proxy-agent.js',
  'node_modules/undici/lib/dispatcher/env-http-proxy-agent.js',
];

interface Metafile {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}
let meta: Metafile;
let svc: TestService;
let env: Record<string, string>;
beforeAll(async () => {
  meta = JSON.parse(readFileSync(join(ROOT, 'build/metafile.json'), 'utf8')) as Metafile;
  svc = await startTestService({ seed: 'demo' });
  env = { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey, LIC_CONFIG_DIR: tempDir() };
});
afterAll(() => svc.close());

/** Runs `lic ARGS` with the hooks; resolves with its exit code and the files it loaded, relative to the repo. */
async function loads(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; files: string[] }> {
  const log = join(tempDir(), 'loads.txt');
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', REGISTER, BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: tempDir(), NODE_DISABLE_COMPILE_CACHE: '1', LIC_GUARD_LOG: log, ...extraEnv },
      stdio: 'ignore',
    });
    child.on('error', reject);
    child.on('close', resolve);
  });
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    // nothing loaded through the ES module loader
  }
  const files = text
    .split('\n')
    .filter((u) => u.startsWith('file:'))
    .map((u) => relative(ROOT, fileURLToPath(u)));
  return { code, files };
}

/** The sources and packages bundled into `files` (dist outputs), as metafile input paths. */
function inputsOf(files: string[]): string[] {
  return files.flatMap((f) => {
    const out = meta.outputs[f];
    if (!out) throw new Error(`${f} is not in build/metafile.json: a stale build?`);
    return Object.keys(out.inputs);
  });
}

const offending = (inputs: string[], banned: string[]) => inputs.filter((i) => banned.some((b) => i.includes(b)));

describe('what a short command loads (bundle metafile + module hooks)', () => {
  it('lic --version: answered by bin/lic.js, no file of the bundle loaded', async () => {
    const r = await loads(['--version']);
    expect(r.code).toBe(0);
    expect(r.files.filter((f) => f.startsWith('dist/'))).toEqual([]);
  });

  it.each([[['--help']], [['keys', '--help']], [['log', 'list', '--help']]])('lic %j: no HTTP client, no lazy chunk', async (args) => {
    const r = await loads(args);
    expect(r.code).toBe(0);
    expect(r.files).toContain('dist/cli.js');
    expect(offending(inputsOf(r.files.filter((f) => f.startsWith('dist/'))), [...NEVER_AT_START, ...NO_CLIENT])).toEqual([]);
  });

  it.each([[['keys', 'list', '-o', 'json']], [['log', 'list', '--level', 'Warning', '--since', '24h', '-o', 'json']], [['keys', 'list']]])(
    'lic %j against the service: undici Agent only, nothing else lazy',
    async (args) => {
      const r = await loads(args, env);
      expect(r.code).toBe(0);
      const inputs = inputsOf(r.files.filter((f) => f.startsWith('dist/')));
      // it did make its request with undici's Agent ...
      expect(inputs.some((i) => i.endsWith('node_modules/undici/lib/dispatcher/agent.js'))).toBe(true);
      // ... and loaded nothing it does not need
      expect(offending(inputs, [...NEVER_AT_START, ...NOT_FOR_A_REQUEST])).toEqual([]);
    },
  );

  it('every package comes from the bundle: nothing is loaded from node_modules at run time', async () => {
    const r = await loads(['keys', 'list', '-o', 'json'], env);
    expect(r.code).toBe(0);
    expect(r.files.filter((f) => f.includes('node_modules/'))).toEqual([]);
  });

  it('the guard sees what it guards: a proxy loads the proxy agent, a TTY-less `lic serve --help` stays small', async () => {
    // a proxy that refuses: the request fails, but the proxy agent must have been loaded for it
    const r = await loads(['keys', 'list', '--retries', '0'], { ...env, HTTP_PROXY: 'http://127.0.0.1:9' });
    expect(r.code).not.toBe(0);
    expect(
      inputsOf(r.files.filter((f) => f.startsWith('dist/'))).some((i) => i.includes('undici/lib/dispatcher/env-http-proxy-agent.js')),
    ).toBe(true);
  });
});
