// Cross-cutting: no command loads a module it does not need; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * The start-up guard, not a timing assert: a short command must not load or
 * initialise a module it does not need. The built CLI is one CommonJS file (dist/cli.cjs, or
 * for a command line that names a noun dist/cli-NOUN.cjs, the same without the other
 * nouns) whose modules are initialised lazily by esbuild's wrappers (`"src/cli/table.ts"() {...}`),
 * plus dist/vendor/*.cjs and dist/server.cjs, required on first use. The CLI is spawned with
 * NODE_V8_COVERAGE: V8's precise coverage says which files ran and which wrappers were
 * called; the esbuild metafile (build/metafile.json, written by scripts/build.mjs) says which
 * sources and packages went into each file. Times themselves are measured by `npm run bench:startup`.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { BIN } from '../helpers/spawn.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What no short command may load: the service, the table, the profile writer, prompts, CSV, the DLL reader, color, TypeBox. */
const NEVER_AT_START = [
  'src/server/',
  'node_modules/fastify/',
  'node_modules/conf/',
  'node_modules/pe-library/',
  'src/dotnet/',
  'node_modules/@inquirer/',
  'node_modules/csv-stringify/',
  'node_modules/chalk/',
  'node_modules/string-width/',
  'src/cli/table.ts',
  'node_modules/typebox/',
  // the keyring binding: only a command that reads a key kept in the keyring loads it
  'node_modules/@napi-rs/',
];
/** What `--help` needs neither: no HTTP client at all. */
const NO_CLIENT = ['node_modules/undici/', 'src/client/request.ts'];
/** The parts of undici a request through a proxy does not need: its index, fetch, WebSocket, mocks, caches (and, without a proxy, the proxy agents). */
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
/** One function of V8's precise coverage (NODE_V8_COVERAGE): its first range is the whole function. */
interface CoveredFunction {
  functionName: string;
  ranges: { count: number }[];
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

/**
 * Runs `lic ARGS` under V8 coverage; resolves with its exit code, the files it ran (relative
 * to the repo) and the metafile inputs it initialised: every input of a file that ran, but
 * those esbuild wrapped in a lazy initialiser only when that was called.
 */
async function loads(
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; files: string[]; inputs: string[] }> {
  const coverage = tempDir();
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: tempDir(), NODE_DISABLE_COMPILE_CACHE: '1', NODE_V8_COVERAGE: coverage, ...extraEnv },
      stdio: 'ignore',
    });
    child.on('error', reject);
    child.on('close', resolve);
  });
  const ran = new Map<string, CoveredFunction[]>();
  for (const f of readdirSync(coverage)) {
    const { result } = JSON.parse(readFileSync(join(coverage, f), 'utf8')) as { result: { url: string; functions: CoveredFunction[] }[] };
    for (const script of result) {
      const path = script.url.startsWith('file:') ? fileURLToPath(script.url) : script.url;
      if (path.startsWith(ROOT)) ran.set(relative(ROOT, path), script.functions);
    }
  }
  const inputs: string[] = [];
  for (const [file, functions] of ran) {
    const out = meta.outputs[file];
    if (!file.startsWith('dist/')) continue;
    if (!out) throw new Error(`${file} is not in build/metafile.json: a stale build?`);
    const calls = new Map<string, number>();
    for (const fn of functions) calls.set(fn.functionName, (calls.get(fn.functionName) ?? 0) + (fn.ranges[0]?.count ?? 0));
    for (const input of Object.keys(out.inputs)) {
      const wrapped = calls.get(input);
      if (wrapped === undefined || wrapped > 0) inputs.push(input);
    }
  }
  return { code, files: [...ran.keys()], inputs };
}

const offending = (inputs: string[], banned: string[]) => inputs.filter((i) => banned.some((b) => i.includes(b)));

describe('what a short command loads (bundle metafile + V8 coverage)', () => {
  it('lic --version: answered by bin/lic.js, no file of the bundle loaded', async () => {
    const r = await loads(['--version']);
    expect(r.code).toBe(0);
    expect(r.files).toContain('bin/lic.js');
    expect(r.files.filter((f) => f.startsWith('dist/'))).toEqual([]);
  });

  it.each([[['--help']], [['keys', '--help']], [['help', 'filters']], [[]]])(
    'lic %j: answered by bin/lic.js from the prebuilt help (dist/help.json), no file of the bundle loaded',
    async (args) => {
      const r = await loads(args);
      expect(r.code).toBe(args.length ? 0 : 2);
      expect(r.files).toContain('bin/lic.js');
      expect(r.files.filter((f) => f.startsWith('dist/'))).toEqual([]);
    },
  );

  it.each([
    [['log', 'list', '--help'], ['dist/cli-log.cjs']],
    // a flag first: dist/command-line.cjs looks for a noun past it, and finds none
    [
      ['--no-color', '--help'],
      ['dist/cli.cjs', 'dist/command-line.cjs'],
    ],
  ])('lic %j: no HTTP client, nothing lazy (%j)', async (args, files) => {
    const r = await loads(args);
    expect(r.code).toBe(0);
    expect(r.files.filter((f) => f.startsWith('dist/')).sort()).toEqual(files);
    expect(r.inputs).toContain('node_modules/commander/lib/command.js');
    expect(offending(r.inputs, [...NEVER_AT_START, ...NO_CLIENT])).toEqual([]);
  });

  it.each([[['keys', 'list', '-o', 'json']], [['log', 'list', '--level', 'Warning', '--since', '24h', '-o', 'json']], [['keys', 'list']]])(
    'lic %j against an http:// service: node:http, no undici, nothing else lazy',
    async (args) => {
      const r = await loads(args, env);
      expect(r.code).toBe(0);
      // it did make its request, through node:http ...
      expect(r.inputs).toContain('src/client/node-http.ts');
      // ... from its noun's bundle, and loaded neither undici nor anything else it does not need
      expect(r.files.filter((f) => f.startsWith('dist/'))).toEqual([`dist/cli-${args[0]}.cjs`]);
      expect(offending(r.inputs, [...NEVER_AT_START, 'node_modules/undici/'])).toEqual([]);
      // ... nor any other noun's commands (src/cli/program.ts, NOUNS: each noun loads on its own)
      const commands = r.inputs.filter((i) => i.startsWith('src/commands/'));
      expect(commands.length).toBeGreaterThan(0);
      expect(commands.filter((i) => !i.startsWith(`src/commands/${args[0]}/`))).toEqual([]);
    },
  );

  it('lic -o json keys list: the noun past the root flags (dist/command-line.cjs), then its bundle', async () => {
    const r = await loads(['-o', 'json', 'keys', 'list'], env);
    expect(r.code).toBe(0);
    expect(r.files.filter((f) => f.startsWith('dist/')).sort()).toEqual(['dist/cli-keys.cjs', 'dist/command-line.cjs']);
    expect(offending(r.inputs, [...NEVER_AT_START, 'node_modules/undici/'])).toEqual([]);
  });

  it('lic keys list through a proxy: undici Agent and proxy agent, none of the rest of undici', async () => {
    const { startProxy } = await import('../helpers/proxy.js');
    const proxy = await startProxy();
    try {
      const r = await loads(['keys', 'list', '-o', 'json'], { ...env, HTTP_PROXY: proxy.url });
      expect(r.code).toBe(0);
      expect(proxy.forwarded).toEqual([`GET ${svc.url}/v1/api-keys`]);
      expect(r.files.filter((f) => f.startsWith('dist/')).sort()).toEqual(['dist/cli-keys.cjs', 'dist/vendor/undici.cjs']);
      expect(r.inputs.some((i) => i.endsWith('node_modules/undici/lib/dispatcher/agent.js'))).toBe(true);
      const notForAProxy = NOT_FOR_A_REQUEST.filter((m) => !m.endsWith('proxy-agent.js'));
      expect(offending(r.inputs, [...NEVER_AT_START, ...notForAProxy])).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('every package comes from the bundle: nothing is loaded from node_modules at run time', async () => {
    const r = await loads(['keys', 'list', '-o', 'json'], env);
    expect(r.code).toBe(0);
    expect(r.files.length).toBeGreaterThan(1);
    expect(r.files.filter((f) => f.includes('node_modules/'))).toEqual([]);
  });

  it('the bundles are ASCII only (scripts/build.mjs asciiOnly): one other character makes V8 hold and decode the whole file as two-byte text', () => {
    const bundles = readdirSync(join(ROOT, 'dist')).filter((f) => /^cli(-[a-z]+)?\.cjs$/.test(f));
    expect(bundles.length).toBeGreaterThan(1);
    for (const file of [...bundles.map((f) => `dist/${f}`), 'dist/server.cjs']) {
      const bytes = readFileSync(join(ROOT, file));
      expect(
        bytes.findIndex((b) => b > 0x7f),
        file,
      ).toBe(-1);
    }
    // the sources do hold such characters where esbuild keeps them as written (a pattern, doc comments)
    expect(readFileSync(join(ROOT, 'dist/cli.cjs'), 'latin1')).toContain('\\u2022');
  });

  it('a key in the profile file, or LIC_API_KEY over a keyring profile: no keyring binding, no key-storage module', async () => {
    const { writeFileSync } = await import('node:fs');
    const dir = tempDir();
    const profiles = (p: Record<string, unknown>) =>
      writeFileSync(join(dir, 'profiles.json'), JSON.stringify({ profiles: { p: { baseUrl: svc.url, ...p } }, defaultProfile: 'p' }));
    profiles({ apiKey: svc.adminKey });
    const file = await loads(['keys', 'list', '-o', 'json'], { LIC_CONFIG_DIR: dir });
    expect(file.code).toBe(0);
    expect(file.files.filter((f) => f.includes('node_modules/'))).toEqual([]);
    expect(offending(file.inputs, [...NEVER_AT_START, 'src/config/key-storage.ts', 'src/config/keyring.ts'])).toEqual([]);
    profiles({ keyStore: 'keyring' });
    const env = await loads(['keys', 'list', '-o', 'json'], { LIC_CONFIG_DIR: dir, LIC_API_KEY: svc.adminKey });
    expect(env.code).toBe(0);
    expect(env.files.filter((f) => f.includes('node_modules/'))).toEqual([]);
    expect(offending(env.inputs, [...NEVER_AT_START, 'src/config/key-storage.ts', 'src/config/keyring.ts'])).toEqual([]);
  });

  it('the guard sees the keyring: a profile whose key is in the keyring loads the binding from node_modules', async () => {
    const { writeFileSync } = await import('node:fs');
    const dir = tempDir();
    writeFileSync(
      join(dir, 'profiles.json'),
      JSON.stringify({ profiles: { p: { baseUrl: svc.url, keyStore: 'keyring' } }, defaultProfile: 'p' }),
    );
    // no session bus here, so the read fails (exit 3), but only after the binding was loaded for it
    const r = await loads(['keys', 'list', '-o', 'json'], { LIC_CONFIG_DIR: dir });
    expect(r.code).toBe(3);
    expect(r.files).toContain('node_modules/@napi-rs/keyring/index.js');
    expect(r.inputs).toContain('src/config/keyring.ts');
  });

  it('the guard sees what it guards: a proxy loads the proxy agent, a table loads the table', async () => {
    // a proxy that refuses: the request fails, but the proxy agent must have been initialised for it
    const r = await loads(['keys', 'list', '--retries', '0'], { ...env, HTTP_PROXY: 'http://127.0.0.1:9' });
    expect(r.code).not.toBe(0);
    expect(r.inputs.some((i) => i.includes('undici/lib/dispatcher/env-http-proxy-agent.js'))).toBe(true);
    // csv output initialises csv-stringify from its own file
    const csv = await loads(['keys', 'list', '-o', 'csv'], env);
    expect(csv.code).toBe(0);
    expect(csv.files).toContain('dist/vendor/csv-stringify.cjs');
    expect(csv.inputs.some((i) => i.includes('node_modules/csv-stringify/'))).toBe(true);
  });
});
