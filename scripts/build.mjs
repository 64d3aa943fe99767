// Bundles the CLI and every pure-JS dependency into dist/ with esbuild, so a start reads a
// few files instead of resolving hundreds in node_modules. Only the native addons stay
// external: better-sqlite3 and @napi-rs/keyring (loaded when a key is read from the keyring). The output is CommonJS, not ES modules: Node starts a CommonJS
// file without its ES module loader (bench/startup.md), and bin/lic.js keeps V8's code of
// every file in Node's compile cache (module.enableCompileCache).
//   dist/cli.cjs          lic itself: commander, every verb, the renderer, the client. Our
//                         own modules that a short command does not run (the HTTP client,
//                         the table, the profile writer, the DLL reader...) are in it but
//                         initialised only when imported (esbuild's lazy module wrappers).
//   dist/cli-NOUN.cjs     the same without the other nouns' modules, for a command line
//                         that names NOUN (bin/lic.js): one per noun but `completion`; one
//                         function expression (the CommonJS wrapper round it), no whitespace.
//   dist/command-line.cjs src/cli/command-line.ts alone: bin/lic.js finds the noun of a
//                         command line that starts with a root flag with it.
//   dist/vendor/PKG.cjs   each bigger third-party package (VENDOR below), required on first
//                         use: a command that does not use undici or conf does not read them.
//   dist/server.cjs       `lic serve`: fastify, ajv, swagger, SQLite (its own copy of the
//                         schema modules; nothing crosses the boundary but plain data and
//                         the service's own error classes).
// bench/startup.md keeps the budget; test/cli/startup-guard.test.ts checks, with the
// metafile written here and V8's coverage, which modules each short command initialises.
import { createHash } from 'node:crypto';
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { lazyBuiltins } from './lazy-builtins.mjs';
import { prebuiltHelp } from './prebuilt-help.mjs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/**
 * Third-party packages kept out of dist/cli.cjs, each in dist/vendor/<name>.cjs and
 * required on first use, so their size costs nothing to the commands that do not use them
 * (the HTTP client for --help; conf for everything but `profile add/use/remove`).
 */
const VENDOR = [
  'undici',
  'conf',
  'write-file-atomic',
  'chalk',
  'csv-stringify',
  '@inquirer/confirm',
  '@inquirer/password',
  'typebox',
  'pe-library',
  'yaml',
  // terminal tables only (src/cli/table.ts, itself loaded on first use): not --help's cost;
  // string-width and wrap-ansi (with ansi-styles, color-convert and emoji-regex, ~50 KB) would
  // otherwise be in every bundle, read and deserialised by every start
  'cli-table3',
  'string-width',
  'wrap-ansi',
  // `log report` only: the charts of its HTML page
  '@observablehq/plot',
  'linkedom',
];
/**
 * A VENDOR package whose index loads far more than lic uses: its vendor file holds this entry
 * instead (the names lic imports, each from the package's own module), and the stand-in reads
 * each name on first use, so a name that is itself a getter (undici's proxy agent) stays lazy.
 */
const VENDOR_ENTRY = { undici: './scripts/vendor-undici.cjs' };
/** require() from the repository's root, as the vendor builds resolve (their resolveDir) */
const requireHere = createRequire(join(process.cwd(), 'package.json'));
/** The names `importer` takes from `spec` by `import { a, b } from 'spec'` or `(await import('spec')).a`. */
function importedNames(importer, spec) {
  const text = readFileSync(importer, 'utf8');
  const quoted = `['"]${spec.replace(/[/.]/g, '\\$&')}['"]`;
  const names = [];
  for (const m of text.matchAll(new RegExp(`import\\s*\\{([^}]*)\\}\\s*from\\s*${quoted}`, 'g')))
    names.push(
      ...m[1]
        .split(',')
        .map((n) => n.trim().split(/\s+as\s+/)[0])
        .filter((n) => n && !n.startsWith('type ')),
    );
  for (const m of text.matchAll(new RegExp(`\\(await import\\(${quoted}\\)\\)\\.(\\w+)`, 'g'))) names.push(m[1]);
  return names;
}
const packageOf = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');
const vendorFile = (name) => `./vendor/${name.replace(/^@/, '').replace(/\//g, '-')}.cjs`;
/** package → the specifiers lic imports from it (filled while dist/cli.cjs is built) */
const vendorSpecs = new Map();

/**
 * Each import of a VENDOR package from our own code resolves to a stand-in that requires
 * dist/vendor/<name>.cjs when it is first initialised and re-exports the module's names:
 * `default` is module.exports for a CommonJS module and the default export of an ES module,
 * as in Node. The names are read by loading the module here, at build time.
 */
const vendorPackages = {
  name: 'vendor-packages',
  setup(b) {
    b.onResolve({ filter: /^\.\/vendor\// }, (args) => ({ path: args.path, external: true }));
    b.onResolve({ filter: /^@?[a-z]/ }, (args) => {
      const name = packageOf(args.path);
      if (!VENDOR.includes(name) || args.importer.includes('node_modules')) return undefined;
      if (!vendorSpecs.has(name)) vendorSpecs.set(name, new Set());
      vendorSpecs.get(name).add(args.path);
      const entry = VENDOR_ENTRY[args.path];
      if (entry) {
        const held = Object.keys(requireHere(entry));
        const missing = importedNames(args.importer, args.path).filter((n) => !held.includes(n));
        if (missing.length)
          throw new Error(`${args.importer} imports ${missing.join(', ')} from ${args.path}, which ${entry} does not hold`);
      }
      return { path: args.path, namespace: 'vendor' };
    });
    b.onLoad({ filter: /.*/, namespace: 'vendor' }, async (args) => {
      const required = `require(${JSON.stringify(vendorFile(packageOf(args.path)))})[${JSON.stringify(args.path)}]`;
      if (VENDOR_ENTRY[args.path]) {
        // CommonJS with a getter per name: the vendor file is required, and each name read, on first use
        const getters = Object.keys(requireHere(VENDOR_ENTRY[args.path])).map(
          (n) => `  get ${JSON.stringify(n)}() { return (m ??= ${required})[${JSON.stringify(n)}]; },`,
        );
        return { loader: 'js', contents: `let m;\nmodule.exports = {\n${getters.join('\n')}\n};\n`, resolveDir: process.cwd() };
      }
      const ns = await import(args.path);
      const names = Object.keys(ns).filter((n) => n !== 'default' && n !== '__esModule' && n !== 'module.exports');
      const lines = [
        `const m = ${required};`,
        'export default m.__esModule ? m.default : m;',
        ...names.map((n, i) => `const e${i} = m[${JSON.stringify(n)}];`),
        `export { ${names.map((n, i) => `e${i} as ${JSON.stringify(n)}`).join(', ')} };`,
      ];
      return { loader: 'js', contents: lines.join('\n'), resolveDir: process.cwd() };
    });
  },
};

/**
 * src/cli/program.ts's NOUNS as `[noun, the module its loader imports]` pairs, in its order,
 * read from the source: the noun bundles are built from this list. Throws when a line of
 * NOUNS does not have the shape `['noun', async (...) => (await import('MODULE'))...]`.
 */
function nounModules() {
  const text = readFileSync(new URL('../src/cli/program.ts', import.meta.url), 'utf8');
  const start = text.indexOf('export const NOUNS');
  const block = text.slice(start, text.indexOf(']);', start));
  const lines = block.split('\n').filter((l) => /^\s*\['/.test(l));
  const pairs = lines.map((l) => l.match(/^\s*\['([a-z-]+)', async \([a-z]*\) => \(await import\('([^']+)'\)\)/)?.slice(1, 3));
  if (start < 0 || !pairs.length || pairs.some((p) => !p))
    throw new Error(`src/cli/program.ts: NOUNS has a line this build can't read:\n${lines.filter((_, i) => !pairs[i]).join('\n')}`);
  return pairs;
}

/**
 * For dist/cli-<noun>.cjs: each other noun's module, as NOUNS in src/cli/program.ts imports
 * it (`nouns`: nounModules()), is a stand-in that throws when loaded. bin/lic.js runs this
 * bundle only for a command line whose first word is `noun`, for which buildProgram loads
 * that noun alone; the throw names the bug should that ever change.
 */
function onlyNoun(noun, spec, nouns) {
  const others = new Set(nouns.map(([, s]) => s).filter((s) => s !== spec));
  return {
    name: 'only-noun',
    setup(b) {
      b.onResolve({ filter: /^\.\.\/commands\// }, (args) =>
        args.kind === 'dynamic-import' && args.importer.endsWith(join('src', 'cli', 'program.ts')) && others.has(args.path)
          ? { path: args.path, namespace: 'other-noun' }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'other-noun' }, (args) => ({
        loader: 'js',
        contents: `throw new Error(${JSON.stringify(`internal error: dist/cli-${noun}.cjs holds the noun ${noun} only, not ${args.path} (scripts/build.mjs)`)});\n`,
      }));
    },
  };
}

/** `lic serve` loads the service from dist/server.cjs, built on its own. */
const serverExternal = {
  name: 'server-external',
  setup(b) {
    b.onResolve({ filter: /\/server\/index\.js$/ }, (args) =>
      args.importer.includes('src/commands/serve') ? { path: './server.cjs', external: true } : undefined,
    );
  },
};

// a clean dist/: stale files of an older build would otherwise linger beside the new ones
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

/** What every output file shares: one CommonJS file each, Node 22, built-ins lazy. */
const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  // native addons stay in node_modules: better-sqlite3 (lic serve) and the keyring binding
  external: ['better-sqlite3', '@napi-rs/keyring'],
  // a dynamic import() of a bundled module becomes a call of its lazy initialiser, and one of
  // an external file (the service, a vendor package) a require(): no ES module loader at all
  supported: { 'dynamic-import': false },
  // driver.ts finds better-sqlite3 from import.meta.url, which CommonJS has not: made from
  // __filename when first read (lic serve), not at every start
  define: { __LIC_VERSION__: JSON.stringify(pkg.version), 'import.meta.url': '__licImportMeta.url' },
  banner: { js: "var __licImportMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };" },
  // the main fields as Node resolves them (a package's "module" build may differ from what Node runs)
  mainFields: ['main'],
  conditions: ['node', 'import', 'default'],
  sourcemap: true,
  metafile: true,
  // demo assets (src/server/seed/assets) inlined: text as a string, key blobs as bytes
  loader: { '.html': 'text', '.xml': 'text', '.snk': 'binary' },
  logLevel: 'warning',
  legalComments: 'none',
};
const results = [];
results.push(
  await build({
    ...common,
    entryPoints: ['src/cli/index.ts'],
    outfile: 'dist/cli.cjs',
    plugins: [lazyBuiltins, vendorPackages, serverExternal],
  }),
);
// one bundle per noun (dist/cli-<noun>.cjs): the whole CLI with every other noun's module left
// out. bin/lic.js loads it for a command line that names that noun, for which
// src/cli/program.ts declares that noun alone anyway; it holds 44-63 % of dist/cli.cjs's code, which V8
// reads, deserialises and keeps in its young generation whole (bench/startup.md)
// Each is written as bin/lic.js compiles it, so that it reads the file as it is: one function
// expression, CommonJS's wrapper (exports, require, module, __filename, __dirname) already
// round the code (no 340 KB copy made by Module.wrap at every start), and without whitespace
// or comments (~35 % less to read). Stack traces, shown only with LIC_DEBUG=1, come from
// dist/cli.cjs, which stays as esbuild prints it: bin/lic.js runs it when LIC_DEBUG=1.
const nouns = nounModules();
const bundled = nouns.filter(([noun]) => noun !== 'completion');
results.push(
  ...(await Promise.all(
    bundled.map(([noun, spec]) =>
      build({
        ...common,
        entryPoints: ['src/cli/index.ts'],
        outfile: `dist/cli-${noun}.cjs`,
        minifyWhitespace: true,
        banner: { js: `(function (exports, require, module, __filename, __dirname) {${common.banner.js}` },
        footer: { js: '})' },
        plugins: [onlyNoun(noun, spec, nouns), lazyBuiltins, vendorPackages, serverExternal],
      }),
    ),
  )),
);
results.push(await build({ ...common, entryPoints: ['src/server/index.ts'], outfile: 'dist/server.cjs', plugins: [lazyBuiltins] }));
// bin/lic.js finds the noun of a command line that starts with a flag (`lic -o json keys list`)
// with src/cli/command-line.ts, as buildProgram does: that module alone (no imports, no banner)
results.push(
  await build({ ...common, banner: {}, entryPoints: ['src/cli/command-line.ts'], outfile: 'dist/command-line.cjs', plugins: [] }),
);
const cliFiles = ['dist/cli.cjs', ...bundled.map(([noun]) => `dist/cli-${noun}.cjs`)];
for (const file of [...cliFiles, 'dist/server.cjs']) asciiOnly(file);
for (const [name, specs] of vendorSpecs) {
  // getters: a package's modules are initialised when first asked for (undici's proxy agent only with a proxy)
  const entry = [...specs]
    .map((s) => `  get ${JSON.stringify(s)}() { return require(${JSON.stringify(VENDOR_ENTRY[s] ?? s)}); },`)
    .join('\n');
  results.push(
    await build({
      ...common,
      stdin: { contents: `module.exports = {\n${entry}\n};\n`, resolveDir: process.cwd(), sourcefile: `vendor:${name}` },
      outfile: join('dist', vendorFile(name)),
      plugins: [lazyBuiltins],
    }),
  );
}

// bin/lic.js answers `--version` from this file without loading the bundle, and refuses a
// Node older than the floor (src/cli/node-lines.json) before loading it; `build` (a hash of
// dist/cli.cjs and every dist/cli-<noun>.cjs) names the bundles' code caches, `nouns` says
// which nouns have a bundle of their own, and `rootFlags` how each root flag takes its value
// (to find the noun past them: src/cli/command-line.ts): V8 checks a cache against the source's length
// only, so a cache is never taken for another build of the same length
const nodeLines = JSON.parse(readFileSync(new URL('../src/cli/node-lines.json', import.meta.url), 'utf8'));
const hash = createHash('sha256');
for (const file of cliFiles) hash.update(readFileSync(file));
const buildId = hash.digest('hex').slice(0, 16);
writeFileSync(
  new URL('../dist/version.json', import.meta.url),
  `${JSON.stringify({
    version: pkg.version,
    build: buildId,
    nouns: bundled.map(([noun]) => noun),
    rootFlags: createRequire(import.meta.url)('../dist/cli.cjs').rootFlagArity(),
    node: { floor: nodeLines.floor, supported: nodeLines.supported, endOfLife: nodeLines.endOfLife },
  })}\n`,
);
// bin/lic.js prints `lic --help`, `lic`, `lic NOUN --help`... from this file without loading
// the bundle, where they are the bundle's bytes (scripts/prebuilt-help.mjs)
const help = await prebuiltHelp(new URL('../dist/cli.cjs', import.meta.url).pathname);
// bin/lic.js reads the file only for a command line of a page's shape (mayHaveHelpPage): a page
// it would never look for is a build error, not a page silently unserved
const { mayHaveHelpPage } = createRequire(import.meta.url)('../bin/lic.js');
for (const args of Object.keys(help.pages).map((k) => JSON.parse(k)))
  if (!mayHaveHelpPage(args))
    throw new Error(`dist/help.json: bin/lic.js's mayHaveHelpPage() never looks for the page of \`lic ${args.join(' ')}\``);
writeFileSync(new URL('../dist/help.json', import.meta.url), `${JSON.stringify(help)}\n`);
// which source module went into which output file: for the start-up guard test, for
// pack-check and for `bench/startup.mjs`'s budget (kept out of dist/, which is published)
const metafile = { inputs: {}, outputs: {} };
for (const r of results) {
  Object.assign(metafile.inputs, r.metafile.inputs);
  Object.assign(metafile.outputs, r.metafile.outputs);
}
mkdirSync(new URL('../build', import.meta.url), { recursive: true });
writeFileSync(new URL('../build/metafile.json', import.meta.url), JSON.stringify(metafile));

/**
 * Rewrites the bundle `file` as ASCII only: each non-ASCII UTF-16 unit becomes a `\uXXXX` escape, which
 * means the same in a string, a template, a regular expression or an identifier, and is plain text in a
 * comment. esbuild escapes strings but prints comments and regular-expression literals as written (a `•`
 * in a pattern, a `§` or `×` in a doc comment). One such character makes the whole file a two-byte string
 * in V8: Node decodes it by the slow path and holds it at twice the size (dist/cli.cjs: ~1 ms of every
 * command's start, bench/startup.md). Throws for U+2028/U+2029, which esbuild escapes in strings: outside
 * one it is a line terminator, which an escape would turn into text.
 */
function asciiOnly(file) {
  const text = readFileSync(file, 'utf8');
  if (/[\u2028\u2029]/.test(text)) throw new Error(`${file}: holds U+2028 or U+2029 outside a string (a line terminator in a comment?)`);
  const ascii = text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== text) writeFileSync(file, ascii);
}
