#!/usr/bin/env node
// The executable: the only place, with src/cli/system.ts, that touches the real process.
// CommonJS (bin/package.json), like the bundle it loads: Node starts a CommonJS file without
// its ES module loader. It answers `lic --version` itself (from dist/version.json, on any
// Node), refuses a Node older than the floor in one line, prints the help pages the build
// prebuilt (dist/help.json) where they are what the bundle would print, and otherwise loads
// dist/cli.cjs with Node's own compile cache. Written for any Node that can parse it: the refusal must reach
// a user of a retired Node line, not a syntax error.
'use strict';

const argv = process.argv.slice(2);
const meta = readMeta();
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${meta ? meta.version : 'unknown (no build: run `npm run build`)'}\n`);
} else if (!meta) {
  process.stderr.write(
    `lic: this copy of lic has not been built (no ${require('node:path').join(__dirname, '..', 'dist')}): run \`npm run build\` in its directory\n`,
  );
  process.exitCode = 1;
} else {
  const refusal = nodeRefusal(process.versions.node, meta.node);
  if (refusal) {
    process.stderr.write(`lic: ${refusal}\n`);
    process.exitCode = 2;
  } else if (!printPrebuiltHelp()) {
    start();
  }
}

/** dist/version.json, written by scripts/build.mjs: `{ version, node: { floor, supported, endOfLife } }`; undefined when there is no build. */
function readMeta() {
  try {
    return require('../dist/version.json');
  } catch {
    return undefined;
  }
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
 * Prints the help page dist/help.json holds for this exact command line (`lic`, `lic --help`,
 * `lic keys --help`, `lic help filters`...: scripts/prebuilt-help.mjs, which ran each through
 * the bundle at build time) and sets its exit code; false, printing nothing, when it holds
 * none, or when the page's stream is a terminal of another width than the page's (on a
 * terminal help is wrapped to its width, src/cli/layout.ts: COLUMNS, else the terminal's
 * columns) or one the page differs on: the bundle then prints it.
 */
function printPrebuiltHelp() {
  if (argv.length > 2) return false;
  let help;
  try {
    help = require('../dist/help.json');
  } catch {
    return false;
  }
  const page = help.pages[JSON.stringify(argv)];
  if (!page) return false;
  const [fd, code, text, onTerminal] = page;
  const stream = fd === 1 ? process.stdout : process.stderr;
  if (stream.isTTY) {
    const columns = (process.env.COLUMNS || '').trim();
    const width = /^\d+$/.test(columns) && Number(columns) > 0 ? Number(columns) : stream.columns || 80;
    if (!onTerminal || width !== help.width) return false;
  }
  // as the bundle: a reader that went away (`lic --help | head -1`) ends the run quietly, exit 0
  stream.on('error', (e) => {
    if (e.code !== 'EPIPE') throw e;
  });
  stream.write(help.texts[text]);
  process.exitCode = code;
  return true;
}

/** Loads dist/cli.cjs with Node's compile cache, then runs the command line. */
async function start() {
  const { main, systemContext } = loadBundle();
  process.exitCode = await main(argv, systemContext());
}

/**
 * dist/cli.cjs's exports, loaded with Node's compile cache (module.enableCompileCache: it keeps
 * the compiled code of every CommonJS file loaded after it, dist/vendor/ and dist/server.cjs
 * too) in cacheDir(), in a subdirectory per Node version and set of V8 flags. NODE_DISABLE_COMPILE_CACHE=1
 * (Node's own switch) turns it off; LIC_CACHE_DIR moves it. A cache is never a failure: an
 * unwritable directory or a rejected file just mean compiling this time.
 */
function loadBundle() {
  const path = require('node:path');
  if (!process.env.NODE_DISABLE_COMPILE_CACHE) {
    // Node makes the cache's directories (and any missing parent) with the umask's mode, 0777
    // under umask 000: owner only instead, while it does
    const umask = process.umask(0o077);
    try {
      require('node:module').enableCompileCache(cacheDir());
    } catch {
      // no cache this time
    } finally {
      process.umask(umask);
    }
  }
  return require(path.join(__dirname, '..', 'dist', 'cli.cjs'));
}

/** The code cache's directory: LIC_CACHE_DIR, else $XDG_CACHE_HOME/lic/compile-cache, else ~/.cache/lic/compile-cache (XDG Base Directory spec). */
function cacheDir() {
  const join = require('node:path').join;
  const env = process.env;
  if (env.LIC_CACHE_DIR) return env.LIC_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(require('node:os').homedir(), '.cache');
  return join(base, 'lic', 'compile-cache');
}
