/**
 * `lic serve` needs better-sqlite3, a native module that is an optional dependency: the
 * CLI installs without a compiler (npm drops an optional dependency whose build fails),
 * and only `lic serve` finds out. This check runs first in `lic serve`, so what is missing
 * is said in one line instead of as a module-loader stack.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The SQLite driver `lic serve` stores its data with (package.json optionalDependencies). */
const SQLITE_DRIVER = 'better-sqlite3';

/** What a native build of better-sqlite3 needs (its README, "Installation"; node-gyp's README, "On Unix"). */
const TOOLCHAIN = 'python3, make and a C++ compiler';

/**
 * Loads the SQLite driver and opens an in-memory database with it (the native binding
 * is loaded only then), so an absent package and a binding that does not load on this
 * Node (built for another NODE_MODULE_VERSION, or never built) are both caught.
 * `id` is a package name or absolute path (default better-sqlite3); `packageDir` is lic's
 * installed directory, named in the rebuild advice (computed only when needed). Returns undefined when the driver works, else
 * one line saying what is missing and how to install it.
 */
export function sqliteDriverProblem(
  id: string = SQLITE_DRIVER,
  packageDir?: string,
  nodeVersion = process.versions.node,
): string | undefined {
  const require = createRequire(import.meta.url);
  let Database: new (path: string) => { close(): void };
  try {
    Database = require(id) as typeof Database;
  } catch (e) {
    if ((e as { code?: string }).code !== 'MODULE_NOT_FOUND') return loadFailure(e, packageDir ?? installDir());
    return (
      `\`lic serve\` needs the optional dependency ${SQLITE_DRIVER}, which is not installed (npm leaves it out when its native build fails; ` +
      `the build needs ${TOOLCHAIN}): install those, then install lic again (e.g. \`npm install -g lic\`); every other command works without it`
    );
  }
  // before any Database exists: on Node 24 better-sqlite3 12 aborts the process when V8 frees one
  if (id === SQLITE_DRIVER) {
    const driver = (require(`${SQLITE_DRIVER}/package.json`) as { version: string }).version;
    if (Number(nodeVersion.split('.')[0]) >= 24 && Number(driver.split('.')[0]) <= 12) return node24Problem(nodeVersion, driver);
  }
  try {
    new Database(':memory:').close();
  } catch (e) {
    return loadFailure(e, packageDir ?? installDir());
  }
  return undefined;
}

/**
 * One line for Node ≥ 24 with better-sqlite3 ≤ 12: Node 24's node::ObjectWrap removes an
 * environment cleanup hook in its destructor, and better-sqlite3 12's statements and
 * databases, freed by V8's garbage collector, trip its `(env) != nullptr` assertion: the
 * process aborts (SIGABRT) within seconds of a seeded start (upstream WiseLibs/better-sqlite3
 * #1515; better-sqlite3 13, on Node-API, has no such destructor but needs Node 22).
 */
function node24Problem(nodeVersion: string, driver: string): string {
  return (
    `\`lic serve\` can't run on Node ${nodeVersion} with ${SQLITE_DRIVER} ${driver}: that driver aborts the process on Node 24 and newer ` +
    `when the garbage collector frees a statement (an upstream bug); run \`lic serve\` with Node 20 or 22 — every other command works on this Node`
  );
}

/** One line for a driver that is installed but whose native binding does not load. */
function loadFailure(e: unknown, packageDir: string): string {
  // Node's words on one line ("The module '…' was compiled against a different Node.js version using
  // NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 127"), without its
  // generic "Please try re-compiling …" (the advice below is the specific one)
  const why = (e instanceof Error ? e.message : String(e))
    .replace(/\s+/g, ' ')
    .replace(/\.? Please try re-compiling.*$/, '')
    .trim();
  return (
    `\`lic serve\` needs ${SQLITE_DRIVER}, which is installed but does not load on Node ${process.version} (${why}); ` +
    `rebuild it for this Node with \`npm rebuild ${SQLITE_DRIVER}\` in ${packageDir} (needs ${TOOLCHAIN}); every other command works without it`
  );
}

/** lic's package directory: the nearest directory above this module with a package.json (dist/ or src/ sit directly below it). */
function installDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}
