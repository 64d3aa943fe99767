#!/usr/bin/env node
// The executable: the only place, with src/cli/system.ts, that touches the real process.
// CommonJS (bin/package.json), like the bundle it loads: Node starts a CommonJS file without
// its ES module loader. It answers `lic --version` itself (from dist/version.json, on any
// Node), refuses a Node older than the floor in one line, prints the help pages the build
// prebuilt (dist/help.json) where they are what the bundle would print, and otherwise loads
// dist/cli-NOUN.cjs or dist/cli.cjs with V8's code caches (bundleFile, loadBundle). Written
// for any Node that can parse it: the refusal must reach a user of a retired Node line, not a
// syntax error.
'use strict';

const argv = process.argv.slice(2);
// run as the executable; scripts/sea-entry.cjs requires this file for printPrebuiltHelp, and
// test/cli/noun-bundles.test.ts for bundleFile
if (require.main === module) run();
module.exports = { printPrebuiltHelp, bundleFile, mayHaveHelpPage };

/** `lic ARGV`: --version, the Node floor, a prebuilt help page, else the bundle. */
function run() {
  const meta = readMeta();
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    writeAll(1, `${meta ? meta.version : 'unknown (no build: run `npm run build`)'}\n`);
  } else if (!meta) {
    writeAll(
      2,
      `lic: this copy of lic has not been built (no ${require('node:path').join(__dirname, '..', 'dist')}): run \`npm run build\` in its directory\n`,
    );
    process.exitCode = 1;
  } else {
    const refusal = nodeRefusal(process.versions.node, meta.node);
    if (refusal) {
      writeAll(2, `lic: ${refusal}\n`);
      process.exitCode = 2;
    } else if (!printPrebuiltHelp(argv, () => readDist('help.json'))) {
      start(meta);
    }
  }
}

/**
 * dist/version.json, written by scripts/build.mjs: `{ version, build, nouns, rootFlags, node:
 * { floor, supported, endOfLife } }` (build: a hash of dist/cli.cjs and every
 * dist/cli-NOUN.cjs; nouns: the nouns with a bundle of their own; rootFlags: how each root flag
 * takes its value, for bundleFile); undefined when there is no build.
 */
function readMeta() {
  try {
    return readDist('version.json');
  } catch {
    return undefined;
  }
}

/** A JSON file of dist/, parsed; throws when it can't be read (read and parsed, not required: no module lookup). */
function readDist(name) {
  return JSON.parse(require('node:fs').readFileSync(require('node:path').join(__dirname, '..', 'dist', name), 'utf8'));
}

/**
 * One line when `version` ("20.20.2") is older than `node.floor` ("22.14.0"; package.json
 * engines.node, from src/cli/node-lines.json), naming the supported lines and how to get one;
 * undefined when it may run. In a clone, whose devDependency `node` pins a supported Node in
 * node_modules/.bin, the line also says how to run lic on that one.
 */
function nodeRefusal(version, node) {
  const have = version.split('.').map(Number);
  const want = node.floor.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if (have[i] > want[i]) return undefined;
    if (have[i] < want[i]) break;
    if (i === 2) return undefined;
  }
  const lines = node.supported.slice();
  const last = lines.pop();
  const major = have[0];
  const eol = node.endOfLife[major] ? ` (Node ${major} reached its end of life on ${node.endOfLife[major]})` : '';
  const path = require('node:path');
  const root = path.join(__dirname, '..');
  const bin = path.join(root, 'node_modules', '.bin');
  const clone = require('node:fs').existsSync(path.join(bin, 'node'))
    ? `; in this clone, put the Node it installs first on the PATH (\`export PATH="${bin}:$PATH"\`) or run \`npx lic ...\` in ${root}`
    : '';
  return (
    `Node.js ${version} is not supported${eol}: lic needs Node.js ${lines.join(', ')} or ${last} (${node.floor} or newer); ` +
    `get one from https://nodejs.org/en/download or a version manager (e.g. \`nvm install ${last}\`)${clone}`
  );
}

/**
 * Prints the help page `loadHelp()` (dist/help.json) holds for the command line `args` (`lic`, `lic --help`,
 * `lic keys --help`, `lic help filters`...: scripts/prebuilt-help.mjs, which ran each through
 * the bundle at build time) and sets its exit code; false, printing nothing, when it holds
 * none, or when the page's stream is a terminal of another width than the page's (on a
 * terminal help is wrapped to its width, src/cli/layout.ts: COLUMNS, else the terminal's
 * columns) or one the page differs on: the bundle then prints it.
 */
function printPrebuiltHelp(args, loadHelp) {
  if (!mayHaveHelpPage(args)) return false;
  let help;
  try {
    help = loadHelp();
  } catch {
    return false;
  }
  const page = help.pages[JSON.stringify(args)];
  if (!page) return false;
  const [fd, code, text, onTerminal] = page;
  // Node's stream for the descriptor is made only on a terminal, for its width (writeAll); node:tty
  // (which loads node:net, ~2 ms) only for a character device: a pipe or a file is no terminal
  if (isTerminal(fd)) {
    const columns = (process.env.COLUMNS || '').trim();
    const stream = fd === 1 ? process.stdout : process.stderr;
    const width = /^\d+$/.test(columns) && Number(columns) > 0 ? Number(columns) : stream.columns || 80;
    if (!onTerminal || width !== help.width) return false;
  }
  if (writeAll(fd, help.texts[text])) process.exitCode = code;
  return true;
}

/**
 * Whether dist/help.json may hold a page for the command line `args`: false when it has not the
 * shape of any command line scripts/prebuilt-help.mjs builds a page for (none, `--help`, `-h`,
 * `help [TOPIC|NOUN]`, `NOUN --help|-h`, a noun alone), which scripts/build.mjs checks on every
 * page. `lic keys list` is thus not one: it does not read and parse help.json's 46 KB (~100 KB
 * of V8's young generation) to find no page.
 */
function mayHaveHelpPage(args) {
  if (args.length === 0) return true;
  if (args.length > 2) return false;
  if (args[0] === 'help' || args.length === 1) return true;
  return args[1] === '--help' || args[1] === '-h';
}

/**
 * Whether the file descriptor `fd` is a terminal, asking node:tty (which loads node:net, ~2 ms)
 * only about a character device other than /dev/null (where cron and `> /dev/null` send output).
 */
function isTerminal(fd) {
  const fs = require('node:fs');
  try {
    const st = fs.fstatSync(fd);
    if (!st.isCharacterDevice()) return false;
    const nul = fs.statSync('/dev/null', { throwIfNoEntry: false });
    if (nul && nul.isCharacterDevice() && nul.rdev === st.rdev) return false;
  } catch {
    return false;
  }
  return require('node:tty').isatty(fd);
}

/**
 * Writes `text` to the file descriptor `fd` (1 or 2) at once, with fs.writeSync: Node makes
 * process.stdout on first use, and for a pipe that is a net.Socket, ~4 ms of a ~27 ms start,
 * more than the rest of `lic --version` (bench/startup.md). As the bundle does, a reader that
 * went away (EPIPE: `lic --help | head -1`) ends the run quietly; a descriptor that would
 * block (EAGAIN: a non-blocking pipe that is full) gets the rest through Node's stream; any
 * other failure (ENOSPC: `lic --help > /dev/full`) is one line on stderr and exit 1. Returns
 * false after such a failure.
 */
function writeAll(fd, text) {
  const bytes = Buffer.from(text);
  let at = 0;
  try {
    while (at < bytes.length) at += require('node:fs').writeSync(fd, bytes, at);
  } catch (e) {
    if (e.code === 'EPIPE') return true;
    if (e.code !== 'EAGAIN') {
      process.exitCode = 1;
      const why = e.code === 'ENOSPC' ? 'no space left on device' : e.message;
      try {
        if (fd !== 2) require('node:fs').writeSync(2, `lic: cannot write output: ${why}\n`);
      } catch {
        // stderr fails too: the exit code says it
      }
      return false;
    }
    const stream = fd === 1 ? process.stdout : process.stderr;
    stream.on('error', (err) => {
      if (err.code !== 'EPIPE') process.exitCode = 1;
    });
    stream.write(bytes.subarray(at));
  }
  return true;
}

/**
 * Loads the bundle for the command line (bundleFile) with the code caches, then runs the
 * command line.
 */
async function start(meta) {
  // LIC_DEBUG=1 prints stack traces: dist/cli.cjs's lines are as esbuild printed them, a noun
  // bundle's code is one line (scripts/build.mjs)
  const bundle = loadBundle(bundleFile(process.env.LIC_DEBUG === '1' ? [] : argv, meta), meta.build);
  const ctx = bundle.exports.systemContext();
  // V8 takes a code cache only under the flags it was made with: a run that sets one
  // (--liftoff-only, just before undici loads) writes the bundle's before it does
  const beforeUndici = ctx.beforeUndici;
  if (beforeUndici) ctx.beforeUndici = () => (bundle.saveCache(), beforeUndici());
  process.exitCode = await bundle.exports.main(argv, ctx);
  // not after a usage error (a typo would leave a cache named after it)
  if (process.exitCode !== 2) bundle.saveCache();
  setImmediate(exitWhenIdle);
}

/**
 * Ends the process now (process.exit, with process.exitCode) when nothing but the standard
 * streams' handles is left (process.getActiveResourcesInfo(): no timer, socket, child, file
 * operation or write still in flight, which Node lists as a request such as SimpleWriteWrap),
 * that is when Node would end it anyway: Node's own end of a finished process (freeing the
 * environment, then the heap page by page) takes ~0.7 ms of a ~45 ms `lic keys list`, which
 * exit() leaves to the kernel (docs/benchmarks.md). Called from setImmediate, after the
 * microtasks and Node's check for unhandled rejections. Anything else still there: Node ends
 * the process as usual, once it is done.
 */
function exitWhenIdle() {
  if (process.getActiveResourcesInfo().every((r) => r === 'PipeWrap' || r === 'TTYWrap')) process.exit();
}

/**
 * The bundle that runs the command line `args` as `{ file, noun }`: dist/cli-<noun>.cjs when it
 * names a noun the build made one for (`meta.nouns`, dist/version.json: every noun but
 * `completion`), which holds the whole CLI but the other nouns (scripts/build.mjs); else
 * dist/cli.cjs, the whole CLI (`help`, `completion`, a typo), noun undefined. The noun is the
 * first word, or past the root flags when the first word is one (`lic -o json keys list`):
 * found by dist/command-line.cjs with the build's table of them (`meta.rootFlags`), as
 * src/cli/program.ts finds the one noun it declares.
 */
function bundleFile(args, meta) {
  const nouns = Array.isArray(meta.nouns) ? meta.nouns : [];
  let noun = args[0];
  if (typeof noun === 'string' && noun.startsWith('-') && meta.rootFlags) {
    try {
      // compiled as the bundles are: require() would first read lic's package.json for the
      // file's module type, ~1 ms of a ~45 ms start
      const file = require('node:path').join(__dirname, '..', 'dist', 'command-line.cjs');
      const { nounOfArgv } = requireWithCache(file, false).exports;
      noun = nounOfArgv(args, meta.rootFlags, (a) => nouns.includes(a))?.noun;
    } catch {
      noun = undefined;
    }
  }
  const own = nouns.includes(noun);
  return { file: require('node:path').join(__dirname, '..', 'dist', own ? `cli-${noun}.cjs` : 'cli.cjs'), noun: own ? noun : undefined };
}

/**
 * The bundle `file` (bundleFile) loaded with the code caches, as `{ exports, saveCache }`;
 * a noun's bundle (`noun` given) is written wrapped, one function expression, dist/cli.cjs is
 * a plain CommonJS file (scripts/build.mjs). Every CommonJS file the bundle requires is loaded
 * with Node's compile cache (module.enableCompileCache: dist/vendor/, dist/server.cjs,
 * better-sqlite3; in a subdirectory of cacheDir() per Node version and set of V8 flags),
 * switched on at the first such require: `lic keys list` over http:// requires none.
 * Node makes that cache when it compiles a file, so it holds only the code V8 compiles
 * up front, and nearly all of the bundle is functions V8 compiles when first called
 * (esbuild's module wrappers): the bundle itself is compiled as a vm.Script with a cache
 * made after a run (saveCache, when there was none or V8 refused it), which holds every
 * function that run compiled (bench/startup.md: ~8 ms of CPU less for `lic keys list`): one
 * per noun, as the nouns run different code (`cli-<build>-<noun>-<V8 version>-<arch>.cache`
 * in the same directory; dist/cli.cjs's `cli-<build>-whole-<first word>-…`). NODE_DISABLE_COMPILE_CACHE=1 (Node's own switch)
 * turns both off; LIC_CACHE_DIR moves them. A cache is never a failure: an unwritable
 * directory or a refused file just mean compiling this time.
 */
function loadBundle({ file, noun }, build) {
  const wrapped = noun !== undefined;
  if (process.env.NODE_DISABLE_COMPILE_CACHE || !build)
    return wrapped ? requireWithCache(file, true) : { exports: require(file), saveCache() {} };
  const dir = cacheDir();
  let on = false;
  const enableCompileCache = () => {
    if (on) return;
    on = true;
    // Node makes the cache's directories (and any missing parent) with the umask's mode, 0777
    // under umask 000: owner only instead, while it does
    const umask = process.umask(0o077);
    try {
      require('node:module').enableCompileCache(dir);
    } catch {
      // no cache this time
    } finally {
      process.umask(umask);
    }
  };
  // V8 refuses a cache made by another V8, under other flags or from a source of another
  // length; `build` (dist/version.json) tells builds of the same length apart
  // a noun's bundle has one cache, whatever comes before the noun; dist/cli.cjs one per first
  // word, apart from the noun bundles' (LIC_DEBUG=1 runs it for `lic keys ...` too)
  const name = noun ?? `whole-${/^[a-z][a-z-]{0,19}$/.test(argv[0] ?? '') ? argv[0] : 'other'}`;
  return requireWithCache(file, wrapped, {
    dir,
    build: `cli-${build}-`,
    name: `${name}-${process.versions.v8}-${process.arch}.cache`,
    beforeRequire: enableCompileCache,
  });
}

/**
 * Requires the CommonJS `file` as Node does (its own module, require, __filename), but
 * compiled as a vm.Script (its text as it is when `wrapped`, else in Node's CommonJS
 * wrapper), with the code cache `<build><name>` in `cache.dir` when `cache` is given;
 * `cache.beforeRequire()` runs before the file's first require() of anything but a
 * built-in. `saveCache()` writes the cache of what was compiled so far (0600, by rename),
 * once, when there was none or V8 refused it, and removes the caches of other builds (named
 * `cli-` but not `build`) beside it.
 */
function requireWithCache(file, wrapped, cache) {
  const fs = require('node:fs');
  const path = require('node:path');
  // node:module's Module class, as this file's own module object has it: require('node:module')
  // would load Node's lib/module.js with its source-map support (~0.1 ms, ~10 KB of V8's 1 MiB
  // young generation, which `lic keys list` fills to the edge: docs/benchmarks.md)
  const Module = module.constructor;
  const cacheFile = cache && path.join(cache.dir, cache.build + cache.name);
  let cachedData;
  try {
    if (cacheFile) cachedData = fs.readFileSync(cacheFile);
  } catch {
    // none yet
  }
  const source = fs.readFileSync(file, 'utf8');
  const script = new (require('node:vm').Script)(wrapped ? source : Module.wrap(source), { filename: file, cachedData });
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(path.dirname(file));
  const req = (id) => (cache && !Module.isBuiltin(id) && cache.beforeRequire(), mod.require(id));
  script.runInThisContext()(mod.exports, req, mod, file, path.dirname(file));
  mod.loaded = true;
  let saved = !cache;
  return {
    exports: mod.exports,
    saveCache() {
      if (saved || (cachedData && !script.cachedDataRejected)) return;
      saved = true;
      const tmp = `${cacheFile}.${process.pid}`;
      try {
        fs.mkdirSync(cache.dir, { recursive: true, mode: 0o700 });
        fs.writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
        fs.renameSync(tmp, cacheFile);
        for (const f of fs.readdirSync(cache.dir))
          if (f.startsWith('cli-') && f.endsWith('.cache') && !f.startsWith(cache.build))
            fs.rmSync(path.join(cache.dir, f), { force: true });
      } catch {
        try {
          fs.rmSync(tmp, { force: true });
        } catch {
          // nothing written
        }
      }
    },
  };
}

/** The code cache's directory: LIC_CACHE_DIR, else $XDG_CACHE_HOME/lic/compile-cache, else ~/.cache/lic/compile-cache (XDG Base Directory spec). */
function cacheDir() {
  const join = require('node:path').join;
  const env = process.env;
  if (env.LIC_CACHE_DIR) return env.LIC_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(require('node:os').homedir(), '.cache');
  return join(base, 'lic', 'compile-cache');
}
