/**
 * `lic serve` stores its data with better-sqlite3 13, whose package carries prebuilt
 * Node-API binaries (Linux with glibc or musl, macOS, Windows; x64 and arm64): installing lic
 * compiles nothing. Elsewhere (FreeBSD, 32-bit ARM, ...) the package installs but has no
 * binary to load, and only `lic serve` finds out. This check runs first in `lic serve`, so
 * what is missing is said in one line instead of as a module-loader stack.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The SQLite driver `lic serve` stores its data with (package.json dependencies). */
const SQLITE_DRIVER = 'better-sqlite3';

/** The platforms better-sqlite3 13 ships a binary for (its lib/binding.js, PREBUILD_PLATFORMS × PREBUILD_ARCHS). */
const PREBUILT = 'Linux (glibc or musl), macOS and Windows, on x64 and arm64';

/**
 * Loads the SQLite driver and opens an in-memory database with it (the native binding is
 * loaded only then), so an absent package, a platform without a prebuilt binary and a
 * binary that does not load are all caught. `id`: a package name or absolute path (default
 * better-sqlite3); `packageDir`: lic's installed directory, named in the advice (computed only
 * when needed); `platform`: `${process.platform}-${process.arch}`. Returns undefined when the
 * driver works, else one line saying what is missing and what to do.
 */
export function sqliteDriverProblem(
  id: string = SQLITE_DRIVER,
  packageDir?: string,
  platform = `${process.platform}-${process.arch}`,
): string | undefined {
  const require = createRequire(import.meta.url);
  let Database: new (path: string) => { close(): void };
  try {
    Database = require(id) as typeof Database;
  } catch (e) {
    if ((e as { code?: string }).code !== 'MODULE_NOT_FOUND') return loadFailure(e, packageDir ?? installDir());
    return (
      `\`lic serve\` needs ${SQLITE_DRIVER}, a dependency of lic, which is not installed: ` +
      `install lic again (e.g. \`npm install -g lic\`); every other command works without it`
    );
  }
  try {
    new Database(':memory:').close();
  } catch (e) {
    // better-sqlite3 falls back to build/Release/better_sqlite3.node when it has no prebuilt binary for this platform
    if ((e as { code?: string }).code === 'MODULE_NOT_FOUND' && /better_sqlite3\.node/.test(String((e as Error).message))) {
      return noBinary(platform, packageDir ?? installDir());
    }
    return loadFailure(e, packageDir ?? installDir());
  }
  return undefined;
}

/** One line for a platform better-sqlite3 has no prebuilt binary for: what it has, and how to build one (node-gyp's README, "On Unix"). */
function noBinary(platform: string, packageDir: string): string {
  return (
    `\`lic serve\` needs the SQLite driver ${SQLITE_DRIVER}, which ships binaries for ${PREBUILT}, not for ${platform}: ` +
    `build one with \`npx node-gyp rebuild\` in ${join(packageDir, 'node_modules', SQLITE_DRIVER)} (needs python3, make and a C++ compiler), ` +
    `or use a service elsewhere; every other command works on this machine`
  );
}

/** One line for a driver that is installed but whose native binding does not load. */
function loadFailure(e: unknown, packageDir: string): string {
  // the loader's words on one line, without Node's generic "Please try re-compiling …"
  const why = (e instanceof Error ? e.message : String(e))
    .replace(/\s+/g, ' ')
    .replace(/\.? Please try re-compiling.*$/, '')
    .trim();
  return (
    `\`lic serve\` needs ${SQLITE_DRIVER}, which is installed but does not load on Node ${process.version} (${why}); ` +
    `reinstall lic, which is in ${packageDir} (\`npm install -g lic\`; in a clone, \`npm ci\`); every other command works without it`
  );
}

/** lic's package directory: the nearest directory above this module with a package.json (dist/ or src/ sit directly below it). */
function installDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}
