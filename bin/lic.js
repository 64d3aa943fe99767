#!/usr/bin/env node
// The executable: the only place, with src/cli/system.ts, that touches the real process.
// CommonJS (bin/package.json), not an ES module: Node starts a CommonJS entry ~20 ms
// sooner, and `lic --version` is answered here without loading the bundle (issue 9,
// bench/startup.md). Everything else is dist/cli.js, an ES module bundle, imported below.
'use strict';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // dist/version.json is written by scripts/build.mjs from package.json
  process.stdout.write(`${require('../dist/version.json').version}\n`);
} else {
  start();
}

/** Turns on V8's code cache where Node has one, then runs the command line. */
async function start() {
  const { enableCompileCache } = require('node:module');
  // Node ≥ 22.1: compiled code of the bundle is kept between runs (a few ms per start).
  // NODE_DISABLE_COMPILE_CACHE=1 turns it off (Node's own switch); LIC_CACHE_DIR moves it.
  // Never a failure: an unwritable directory just means no cache.
  if (typeof enableCompileCache === 'function') {
    try {
      enableCompileCache(cacheDir());
    } catch {
      // no cache this time
    }
  }
  // undici parses HTTP with a WebAssembly build of llhttp. V8 tiers that module up with
  // background compile jobs that a short-lived process must wait for at exit (~180 ms per
  // command, measured); baseline (Liftoff) code is plenty for a CLI's few replies.
  require('node:v8').setFlagsFromString('--liftoff-only');
  const { main, systemContext } = await import('../dist/cli.js');
  process.exitCode = await main(argv, systemContext());
}

/** The code cache's directory: LIC_CACHE_DIR, else $XDG_CACHE_HOME/lic, else ~/.cache/lic (XDG Base Directory spec). */
function cacheDir() {
  const { join } = require('node:path');
  const env = process.env;
  if (env.LIC_CACHE_DIR) return env.LIC_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(require('node:os').homedir(), '.cache');
  return join(base, 'lic', 'compile-cache');
}
