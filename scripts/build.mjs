// Bundles the CLI and every pure-JS dependency into dist/ with esbuild, so a start reads a
// few files instead of resolving hundreds in node_modules (issue 9). Only better-sqlite3
// (a native addon) stays external. Code that a short command does not need sits in lazy
// chunks behind dynamic imports: the service (`lic serve`), conf, the DLL reader, prompts,
// progress bars, CSV. bench/startup.md keeps the budget; test/cli/startup-guard.test.ts
// checks, with the metafile written here, which chunks each short command loads.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Built-in modules that cost milliseconds to load (measured: fs/promises ~5 ms with the
 * streams it pulls in, crypto ~3 ms, child_process ~2 ms) but that most commands never
 * call: commander requires child_process for executable subcommands we do not use, and
 * `serve`, `resources get`, `doctor` import crypto or fs/promises for their own work. Each
 * import of one of these resolves to a stand-in whose exports are getters that require the
 * real module (process.getBuiltinModule, Node ≥ 20.16) on first use, so the cost is paid by the command that calls it, not by all.
 */
const LAZY_BUILTINS = [
  'child_process',
  'crypto',
  'fs/promises',
  'readline',
  'os',
  'timers/promises',
  'zlib',
  'dgram',
  'worker_threads',
  'tls',
  'https',
  'http2',
];
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    const filter = new RegExp(`^(node:)?(${LAZY_BUILTINS.map((m) => m.replace('/', '\\/')).join('|')})$`);
    b.onResolve({ filter }, (args) => ({ path: args.path.replace(/^node:/, ''), namespace: 'lazy-builtin' }));
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, async (args) => {
      const real = await import(`node:${args.path}`);
      const names = Object.keys(real).filter((n) => n !== 'default' && !(args.path === 'http2' && n === 'constants'));
      // undici's HTTP/2 client destructures http2.constants (header names such as ':authority',
      // fixed by RFC 9113, and nghttp2 codes) when it loads: a copy taken at build time keeps
      // that from loading http2, tls and crypto (~10 ms) in every run that speaks HTTP/1.1
      const eager = args.path === 'http2' ? `  constants: ${JSON.stringify(real.constants)},\n` : '';
      const getters = names.map((n) => `  get ${JSON.stringify(n)}() { return load()[${JSON.stringify(n)}]; },`).join('\n');
      return {
        loader: 'js',
        contents: `let m;\nconst load = () => (m ??= process.getBuiltinModule(${JSON.stringify(`node:${args.path}`)}));\nmodule.exports = {\n${eager}${getters}\n};\n`,
      };
    });
  },
};

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

// a clean dist/: stale chunks of an older build would otherwise linger beside the new ones
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

const result = await build({
  entryPoints: { cli: 'src/cli/index.ts', server: 'src/server/index.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3'],
  // bundled CommonJS packages (commander, undici, fastify...) call require() for Node's
  // built-ins and read __filename/__dirname (write-file-atomic salts its temp names with
  // __filename); an ES module has none of them, so each output file gets its own
  banner: {
    js: [
      "import { createRequire as __licCreateRequire } from 'node:module';",
      "import { fileURLToPath as __licFileURLToPath } from 'node:url';",
      "import { dirname as __licDirname } from 'node:path';",
      'const require = __licCreateRequire(import.meta.url);',
      'const __filename = __licFileURLToPath(import.meta.url);',
      'const __dirname = __licDirname(__filename);',
    ].join(' '),
  },
  // the main fields as Node resolves them (a package's "module" build may differ from what Node runs)
  mainFields: ['main'],
  conditions: ['node', 'import', 'default'],
  sourcemap: true,
  metafile: true,
  chunkNames: 'chunks/[name]-[hash]',
  // demo assets (src/server/seed/assets) inlined: text as a string, key blobs as bytes
  loader: { '.html': 'text', '.xml': 'text', '.snk': 'binary' },
  define: { __LIC_VERSION__: JSON.stringify(pkg.version) },
  plugins: [lazyBuiltins],
  logLevel: 'warning',
  legalComments: 'none',
});

// bin/lic.js answers `--version` from this file without loading the bundle
writeFileSync(new URL('../dist/version.json', import.meta.url), `${JSON.stringify({ version: pkg.version })}\n`);
// which source module went into which output file: for the start-up guard test and for
// `bench/startup.mjs`'s budget (kept out of dist/, which is published)
mkdirSync(new URL('../build', import.meta.url), { recursive: true });
writeFileSync(new URL('../build/metafile.json', import.meta.url), JSON.stringify(result.metafile));
