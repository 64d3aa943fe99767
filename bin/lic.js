#!/usr/bin/env node
// The executable: the only place, with src/cli/system.ts, that touches the real process.
// CommonJS (bin/package.json), like the bundle it loads: Node starts a CommonJS file without
// its ES module loader, and `lic --version` is answered here without loading the bundle
// (issue 9, bench/startup.md). Everything else is dist/cli.cjs, loaded below with V8's code
// cache: Node's own (module.enableCompileCache) on Node >= 22.1, else a vm.Script whose
// cachedData is kept in the user's cache directory.
'use strict';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // dist/version.json is written by scripts/build.mjs from package.json
  process.stdout.write(`${require('../dist/version.json').version}\n`);
} else {
  start();
}

/** Loads dist/cli.cjs (with a code cache where possible), then runs the command line. */
async function start() {
  // undici parses HTTP with a WebAssembly build of llhttp. V8 tiers that module up with
  // background compile jobs that a short-lived process must wait for at exit (~150 ms per
  // command, measured); baseline (Liftoff) code is plenty for a CLI's few replies. V8
  // rejects a code cache made under other flags than the run that reads it, so the flag is
  // set before anything is compiled, and the caches are kept apart by it: help sends no
  // request and skips node:v8 (~3 ms with the modules it loads).
  const liftoff = !helpOnly(argv);
  if (liftoff) require('node:v8').setFlagsFromString('--liftoff-only');
  const saved = [];
  const { main, systemContext } = loadBundle(saved, liftoff ? '-liftoff' : '');
  process.exitCode = await main(argv, systemContext());
  for (const save of saved) save();
}

/** Whether the command line only asks for help (no request can follow): no arguments, `help ...`, or -h/--help before any `--`. */
function helpOnly(args) {
  if (args.length === 0 || args[0] === 'help') return true;
  for (const a of args) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/**
 * dist/cli.cjs's exports. NODE_DISABLE_COMPILE_CACHE=1 (Node's own switch) turns every code
 * cache off; LIC_CACHE_DIR moves it. A cache is never a failure: an unwritable directory, an
 * unreadable or rejected file (another V8, other flags) just mean compiling this time.
 */
function loadBundle(saved, variant) {
  const path = require('node:path');
  const file = path.join(__dirname, '..', 'dist', 'cli.cjs');
  const useCache = !process.env.NODE_DISABLE_COMPILE_CACHE;
  const { enableCompileCache } = require('node:module');
  if (!useCache || typeof enableCompileCache === 'function') {
    // Node >= 22.1 keeps compiled code of every CommonJS file it loads (dist/vendor/ too)
    if (useCache) {
      try {
        // a directory per set of V8 flags: Node's cache would otherwise be rejected and rewritten in turn
        enableCompileCache(variant ? path.join(cacheDir(), variant.slice(1)) : cacheDir());
      } catch {
        // no cache this time
      }
    }
    return require(file);
  }
  return loadWithCodeCache(file, saved, variant);
}

/**
 * Node 20: loads `file` (a CommonJS module of dist/) as Node would, but compiled as a
 * vm.Script whose cachedData is kept in cacheDir()/<name>-<file's hash>-<Node>-<arch><variant>.v8
 * (`variant`: the V8 flags of this run, see start()).
 * Its require() loads the other files of dist/ (dist/vendor/*.cjs, dist/server.cjs) the
 * same way, once each. A cache is written when there was none or V8 rejected it, by the
 * function pushed on `saved` for after the command has run (so it holds the functions the
 * command compiled too), atomically (a temporary file renamed), so a concurrent run reads
 * either no cache or a whole one; the caches of other builds of the same file are removed then.
 */
function loadWithCodeCache(file, saved, variant) {
  const fs = require('node:fs');
  const path = require('node:path');
  const vm = require('node:vm');
  const Module = require('node:module');
  const dist = path.dirname(file);
  let hashes = {};
  try {
    hashes = require('../dist/version.json').hashes;
  } catch {
    // no hashes: no cache
  }
  const dir = cacheDir();
  const loaded = new Map();
  /** a file's name in dist/version.json's hashes: relative to dist/, with forward slashes */
  const nameOf = (f) => path.relative(dist, f).replace(/\\/g, '/');
  const load = (f) => {
    if (loaded.has(f)) return loaded.get(f).exports;
    const name = nameOf(f);
    const hash = hashes[name];
    const cacheFile =
      hash && path.join(dir, `${name.replace(/\//g, '-').replace(/\.cjs$/, '')}-${hash}-${process.version}-${process.arch}${variant}.v8`);
    let cachedData;
    try {
      if (cacheFile) cachedData = fs.readFileSync(cacheFile);
    } catch {
      // none yet, or unreadable: compile
    }
    const script = new vm.Script(Module.wrap(fs.readFileSync(f, 'utf8')), { filename: f, cachedData });
    const mod = new Module(f, module);
    mod.filename = f;
    loaded.set(f, mod);
    const nodeRequire = Module.createRequire(f);
    // a file of dist/ through this loader, anything else (built-ins, better-sqlite3) through Node's
    const req = (id) => {
      if (id.startsWith('./') || id.startsWith('../')) {
        // (a path outside dist/ has a name starting with ../, never in hashes)
        const target = path.resolve(path.dirname(f), id);
        if (target.endsWith('.cjs') && hashes[nameOf(target)]) return load(target);
      }
      return nodeRequire(id);
    };
    Object.assign(req, { resolve: nodeRequire.resolve, cache: nodeRequire.cache, main: nodeRequire.main });
    script.runInThisContext()(mod.exports, req, mod, f, path.dirname(f));
    mod.loaded = true;
    if (cacheFile && (cachedData === undefined || script.cachedDataRejected)) {
      saved.push(() => {
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        try {
          const data = script.createCachedData();
          fs.mkdirSync(dir, { recursive: true });
          fs.writeFileSync(tmp, data);
          fs.renameSync(tmp, cacheFile);
          // the caches of older builds of this file (same Node, same flags) are of no more use
          const [prefix, suffix] = path.basename(cacheFile).split(hash);
          for (const old of fs.readdirSync(dir)) {
            if (
              old.startsWith(prefix) &&
              old.endsWith(suffix) &&
              old !== path.basename(cacheFile) &&
              /^[0-9a-f]{16}$/.test(old.slice(prefix.length, -suffix.length))
            ) {
              fs.rmSync(path.join(dir, old), { force: true });
            }
          }
        } catch {
          // no cache this time
          try {
            fs.rmSync(tmp, { force: true });
          } catch {
            // left for the next run's rename to never see
          }
        }
      });
    }
    return mod.exports;
  };
  return load(file);
}

/** The code cache's directory: LIC_CACHE_DIR, else $XDG_CACHE_HOME/lic, else ~/.cache/lic (XDG Base Directory spec). */
function cacheDir() {
  const { join } = require('node:path');
  const env = process.env;
  if (env.LIC_CACHE_DIR) return env.LIC_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(require('node:os').homedir(), '.cache');
  return join(base, 'lic', 'compile-cache');
}
