// The esbuild plugin of scripts/build.mjs that makes some of Node's built-in modules load on
// first use instead of at start, and the stand-in module it puts in their place
// (test/cli/lazy-builtins.test.ts runs the stand-in's code).

/**
 * Built-in modules that cost milliseconds to load (fs/promises with the streams it pulls in,
 * crypto, child_process: bench/startup.md) but that most commands never call: commander
 * requires child_process for executable subcommands we do not use, and `serve`,
 * `resources get`, `doctor` import crypto or fs/promises for their own work; tty (it loads
 * net) only when stdin's terminal-ness is asked; v8 and vm (with the heap and profiler
 * modules v8 brings) only for a verb that collects garbage on its own (src/cli/memory.ts).
 * Each import of one of these resolves to a stand-in (standInSource) that loads the real
 * module when one of its exports is first read, so the cost is paid by the command that
 * calls it, not by all.
 */
export const LAZY_BUILTINS = [
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
  'tty',
  'v8',
  'vm',
];

/**
 * The CommonJS source of the stand-in for the built-in `name` ('fs/promises'; a LAZY_BUILTINS
 * entry, without `node:`): module.exports is an empty object whose prototype (a Proxy) answers
 * every name from the real module, loaded by process.getBuiltinModule on the first name read.
 * `constants` (a JavaScript expression) answers the name `constants` instead, without loading
 * the module. `__esModule` is answered (undefined) without loading too: esbuild's __toESM
 * reads it on every import of a CommonJS module.
 *
 * Why a prototype and not a getter per name (what lic had before): an ES module that imports
 * the stand-in gets esbuild's __toESM(stand-in), a new object of the stand-in's prototype with
 * a getter copied for each of the stand-in's own names, and here it has none. With a getter a
 * name (fs/promises has 33, v8 25, tls 19), those copies, their closures and descriptors were
 * ~88 KB of V8's young generation in every `lic keys list` (1 MiB, which that run overflows
 * once: docs/benchmarks.md). Only `Object.keys()` of the stand-in differs (empty): lic never
 * lists a built-in's names.
 */
export function standInSource(name, constants) {
  const own = constants ? `k === 'constants' ? (c ??= ${constants}) : ` : '';
  return [
    'let m, c;',
    `const load = () => (m ??= process.getBuiltinModule(${JSON.stringify(`node:${name}`)}));`,
    'module.exports = Object.create(',
    '  new Proxy({}, {',
    `    get: (_, k) => (k === '__esModule' ? undefined : ${own}load()[k]),`,
    '    has: (_, k) => k in load(),',
    '  }),',
    ');',
    '',
  ].join('\n');
}

/** The esbuild plugin: each import of a LAZY_BUILTINS module, with or without `node:`, gets its stand-in. */
export const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    const filter = new RegExp(`^(node:)?(${LAZY_BUILTINS.map((m) => m.replace('/', '\\/')).join('|')})$`);
    b.onResolve({ filter }, (args) => ({ path: args.path.replace(/^node:/, ''), namespace: 'lazy-builtin' }));
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, async (args) => {
      // undici's HTTP/2 client destructures http2.constants (header names such as ':authority',
      // fixed by RFC 9113, and nghttp2 codes) when it loads: a copy taken at build time keeps
      // that from loading http2, tls and crypto in every run that speaks HTTP/1.1
      // fs/promises' constants are node:fs's own object (loaded at start anyway): a module that
      // reads them when it loads (src/commands/state/apply.ts) does not load fs/promises, and
      // with it readline and the streams, in every command
      const constants =
        args.path === 'http2'
          ? JSON.stringify((await import('node:http2')).constants)
          : args.path === 'fs/promises'
            ? "process.getBuiltinModule('node:fs').constants"
            : undefined;
      return { loader: 'js', contents: standInSource(args.path, constants) };
    });
  },
};
