// The start-up snapshot's entry of dist/lic-sea. scripts/build-sea.mjs bundles it with
// dist/cli.cjs and dist/help.json into one script, which `node --build-sea` runs at build
// time with "useSnapshot": requiring the bundle here evaluates its top level (commander, the
// renderer, what dist/cli.cjs initialises when it loads), and V8 keeps the resulting heap in
// the executable, so a run starts from it instead of reading, compiling and running the
// bundle. The vendor files (dist/vendor/, loaded by the commands that use them) are the
// executable's assets, compiled when first required: in the snapshot they would make every
// start deserialise megabytes it mostly does not use (bench/startup.md).
//
// Nothing of the build machine may be kept: the bundle's top level reads no environment,
// argv, working directory, terminal or clock (systemContext() does, in the deserialised main
// function, at run time), and what names files (__licImportMeta.url, __licSeaRequire) is
// computed when called, from the executable's path at run time.
/* global process, Buffer -- Node's, as in the .js and .mjs files (eslint.config.js lists them there) */
'use strict';

const { dirname, join } = require('node:path');

/** Where lic's other files would be: beside the executable (dist/ in a clone or an install). */
const besideExecutable = () => join(dirname(process.execPath), 'cli.cjs');
// what the bundle's `import.meta.url` stands for (src/commands/serve/driver.ts finds
// better-sqlite3 and lic's directory from it): dist/cli.cjs beside the executable
globalThis.__licImportMeta = {
  get url() {
    return require('node:url').pathToFileURL(besideExecutable()).href;
  },
};
const vendor = new Map();
/**
 * The bundle's require() of what the snapshot does not hold: `./vendor/NAME.cjs` from the
 * executable's asset `vendor/NAME.cjs`, compiled on first use; the service
 * (`./server.cjs`) and the native addons (better-sqlite3, @napi-rs/keyring) from beside the
 * executable, as in an install (without one, `lic serve` and the keyring say what is missing).
 */
function seaRequire(id) {
  const sea = require('node:sea');
  if (id.startsWith('./vendor/') && sea.isSea()) {
    let mod = vendor.get(id);
    if (!mod) {
      const Module = require('node:module');
      const filename = join(dirname(process.execPath), id);
      mod = new Module(filename);
      mod.filename = filename;
      mod.paths = Module._nodeModulePaths(dirname(filename));
      mod._compile(sea.getAsset(id.slice(2), 'utf8'), filename);
      mod.loaded = true;
      vendor.set(id, mod);
    }
    return mod.exports;
  }
  return require('node:module').createRequire(besideExecutable())(id);
}
Object.defineProperty(globalThis, '__licSeaRequire', { value: seaRequire });

const cli = require('../dist/cli.cjs');
const help = require('../dist/help.json');
// bin/lic.js's, on the pages built into the snapshot (its own run() only runs as the main module)
const { printPrebuiltHelp } = require('../bin/lic.js');

// Every noun's help, run once here into a sink: each noun's modules (loaded on demand by
// dist/cli.cjs) are then initialised in the snapshot, with the bytecode of commander's
// parsing and help, instead of compiled in each run (`keys list` ~3 ms of CPU less, bench/startup.md).
// Declarations only: the run reads nothing of this machine (an empty environment, no
// terminal, a stopped clock), and the modules keep no state from it (src/cli/ keeps
// per-program state in WeakMaps keyed by the program's objects). Not `serve` (a long-running
// command) nor `completion` (which declares every noun): serve's modules load node:module,
// which Node does not vouch for in a snapshot.
const NOT_WARMED = ['serve', 'completion'];
const sink = { write: () => true, isTTY: false };
const warmContext = {
  env: {},
  stdout: sink,
  stderr: sink,
  stdin: { isTTY: false, readAll: async () => Buffer.alloc(0), chunks: async function* () {} },
  prompter: {},
  now: () => new Date(0),
  cwd: '/',
  dataDir: '/nonexistent',
  keyring: () => Promise.reject(new Error('no keyring while building')),
  onInterrupt: () => () => {},
  sleep: async () => {},
};
for (const key of Object.keys(help.pages)) {
  const argv = JSON.parse(key);
  if (argv.length === 2 && argv[1] === '--help' && !NOT_WARMED.includes(argv[0]))
    // a failed warm-up fails the build (an unhandled rejection ends the snapshot's run)
    cli.main(argv, warmContext).then((code) => {
      if (code !== 0) throw new Error(`lic ${argv.join(' ')} exited ${code} while building the snapshot`);
    });
}

require('node:v8').startupSnapshot.setDeserializeMainFunction(async () => {
  // argv in a single executable: [the executable's path, the command as typed, ...the arguments]
  const argv = process.argv.slice(2);
  if (!printPrebuiltHelp(argv, () => help)) process.exitCode = await cli.main(argv, cli.systemContext());
});
