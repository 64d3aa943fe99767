#!/usr/bin/env node
// The executable (CommonJS, for any Node that can parse it): --version, the Node floor, a
// prebuilt help page, else dist/cli-NOUN.cjs or dist/cli.cjs with V8's code caches.
// docs/architecture.md ("bin/lic.js") explains each step. Its comments are short on purpose:
// V8 keeps this file's text in the young generation of every run (~2.5 bytes a character).
'use strict';

const argv = process.argv.slice(2);
// required (not run) by scripts/sea-entry.cjs, scripts/build.mjs and tests
if (require.main === module) run();
module.exports = { printPrebuiltHelp, bundleFile, mayHaveHelpPage, requireWithCache };

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

/** dist/version.json (scripts/build.mjs): `{ version, build, nouns, rootFlags, node }`; undefined without a build. */
function readMeta() {
  try {
    return readDist('version.json');
  } catch {
    return undefined;
  }
}

/** A JSON file of dist/, read and parsed (no module lookup); throws when it can't be. */
function readDist(name) {
  return JSON.parse(require('node:fs').readFileSync(require('node:path').join(__dirname, '..', 'dist', name), 'utf8'));
}

/** One line when Node `version` ("20.20.2") is older than `node.floor` (src/cli/node-lines.json), else undefined. */
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
 * Prints the page `loadHelp()` (dist/help.json) holds for `args` and sets its exit code; false,
 * printing nothing, when there is none or it is not what the bundle would print there.
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
  if (isTerminal(fd)) {
    const columns = (process.env.COLUMNS || '').trim();
    const stream = fd === 1 ? process.stdout : process.stderr;
    const width = /^\d+$/.test(columns) && Number(columns) > 0 ? Number(columns) : stream.columns || 80;
    if (!onTerminal || width !== help.width) return false;
  }
  if (writeAll(fd, help.texts[text])) process.exitCode = code;
  return true;
}

/** Whether `args` has the shape of a command line dist/help.json holds pages for (scripts/build.mjs checks each page). */
function mayHaveHelpPage(args) {
  if (args.length === 0) return true;
  if (args.length > 2) return false;
  if (args[0] === 'help' || args.length === 1) return true;
  return args[1] === '--help' || args[1] === '-h';
}

/** Whether the descriptor `fd` is a terminal; node:tty is asked only about a character device but /dev/null. */
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
 * Writes `text` to `fd` (1 or 2) with fs.writeSync; EPIPE ends quietly, EAGAIN leaves the rest
 * to Node's stream, any other failure is one line on stderr, exit 1 and false.
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

/** Loads the command line's bundle (bundleFile, loadBundle) and runs it. */
async function start(meta) {
  // LIC_DEBUG=1 (stack traces) runs the readable dist/cli.cjs
  const bundle = loadBundle(bundleFile(process.env.LIC_DEBUG === '1' ? [] : argv, meta), meta.build);
  const ctx = bundle.exports.systemContext();
  // the cache is written before a V8 flag is set (--liftoff-only, for undici): V8 refuses it under others
  const beforeUndici = ctx.beforeUndici;
  if (beforeUndici) ctx.beforeUndici = () => (bundle.saveCache(), beforeUndici());
  process.exitCode = await bundle.exports.main(argv, ctx);
  // not after a usage error (a typo would leave a cache named after it)
  if (process.exitCode !== 2) bundle.saveCache();
  setImmediate(exitWhenIdle);
}

/**
 * process.exit() when only the standard streams' handles are left (no timer, socket, child or
 * write in flight: process.getActiveResourcesInfo()), skipping Node's teardown; else nothing.
 */
function exitWhenIdle() {
  if (process.getActiveResourcesInfo().every((r) => r === 'PipeWrap' || r === 'TTYWrap')) process.exit();
}

/**
 * `{ file, noun }`: dist/cli-NOUN.cjs when `args` names a noun of `meta.nouns`, first or past
 * root flags (dist/command-line.cjs, `meta.rootFlags`); else dist/cli.cjs, noun undefined.
 */
function bundleFile(args, meta) {
  const nouns = Array.isArray(meta.nouns) ? meta.nouns : [];
  let noun = args[0];
  if (typeof noun === 'string' && noun.startsWith('-') && meta.rootFlags) {
    try {
      // not require(): that reads package.json for the module type first (~1 ms)
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
 * The bundle `{ file, noun }` (bundleFile; a noun's is one function expression) loaded with its
 * code cache (`cli-<build>-<noun or whole-WORD>-<V8>-<arch>.cache` in cacheDir()), as
 * `{ exports, saveCache }`; Node's compile cache for the files it requires, switched on at the
 * first. NODE_DISABLE_COMPILE_CACHE=1 turns both off. A cache is never a failure.
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
    // owner only: Node makes the directories with the umask's mode
    const umask = process.umask(0o077);
    try {
      require('node:module').enableCompileCache(dir);
    } catch {
      // no cache this time
    } finally {
      process.umask(umask);
    }
  };
  // `build` tells builds of the same length apart; dist/cli.cjs has one cache per first word
  const name = noun ?? `whole-${/^[a-z][a-z-]{0,19}$/.test(argv[0] ?? '') ? argv[0] : 'other'}`;
  return requireWithCache(file, wrapped, {
    dir,
    build: `cli-${build}-`,
    name: `${name}-${process.versions.v8}-${process.arch}.cache`,
    beforeRequire: enableCompileCache,
  });
}

/**
 * Requires the CommonJS `file` as Node does, compiled as a vm.Script (as it is when `wrapped`,
 * else in Node's wrapper) with the code cache `cache.dir/<build><name>` when `cache` is given
 * (`cache.beforeRequire()` before its first require of a non-built-in), as `{ exports,
 * saveCache }`; saveCache() writes the cache (0600, by rename) when there was none or V8
 * refused it, and removes other builds' caches.
 */
function requireWithCache(file, wrapped, cache) {
  const fs = require('node:fs');
  const path = require('node:path');
  // node:module's Module, without loading lib/module.js
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

/** LIC_CACHE_DIR, else $XDG_CACHE_HOME/lic/compile-cache, else ~/.cache/lic/compile-cache (XDG Base Directory spec). */
function cacheDir() {
  const join = require('node:path').join;
  const env = process.env;
  if (env.LIC_CACHE_DIR) return env.LIC_CACHE_DIR;
  // $HOME is what os.homedir() answers on POSIX, without loading node:os
  const home = (process.platform !== 'win32' && env.HOME) || require('node:os').homedir();
  return join(env.XDG_CACHE_HOME || join(home, '.cache'), 'lic', 'compile-cache');
}
