// Builds dist/lic-sea (`npm run build:sea`, after `npm run build`): lic as one executable file,
// Node's single executable application (`node --build-sea`, Node 25.5 or newer; built and
// tested on linux-x64), which starts from a V8 start-up snapshot where dist/cli.cjs is already
// loaded and every noun's modules initialised (scripts/sea-entry.cjs). It holds the Node that
// runs this script. `--out FILE` writes it elsewhere (test/e2e/sea.test.ts).
// docs/installing.md says what it is for; bench/startup.md what it measures (BENCH_SEA=1).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({ options: { out: { type: 'string', default: join(root, 'dist', 'lic-sea') } } });
const output = resolve(values.out);
const fail = (message) => {
  process.stderr.write(`build-sea: ${message}\n`);
  process.exit(1);
};
if (process.platform !== 'linux') fail(`a single executable is built here for Linux only, not ${process.platform} (docs/installing.md)`);
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 25 || (major === 25 && minor < 5))
  fail(
    `Node ${process.version} has no --build-sea (Node 25.5 or newer): run it with the repository's Node (node_modules/.bin first on PATH)`,
  );
for (const file of ['cli.cjs', 'help.json', 'vendor'])
  try {
    statSync(join(root, 'dist', file));
  } catch {
    fail(`no dist/${file}: run \`npm run build\` first (npm run build:sea does both)`);
  }

/**
 * The bundle's requires that the snapshot does not hold, left to scripts/sea-entry.cjs's
 * __licSeaRequire at run time: the vendor files (the executable's assets), the service and
 * the native addons (from beside the executable).
 */
const RUNTIME = /^(\.\/vendor\/|\.\/server\.cjs$|better-sqlite3$|@napi-rs\/keyring$)/;
const runtimeRequire = {
  name: 'runtime-require',
  setup(b) {
    b.onResolve({ filter: RUNTIME }, (args) => ({ path: args.path, namespace: 'runtime-require' }));
    b.onLoad({ filter: /.*/, namespace: 'runtime-require' }, (args) => ({
      contents: `module.exports = globalThis.__licSeaRequire(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
    // dist/cli.cjs's banner takes import.meta.url from __filename, which in a snapshot would be
    // this machine's path: the entry's global __licImportMeta stands for it instead
    b.onLoad({ filter: /dist[\\/]cli\.cjs$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const banner = /^var __licImportMeta = .*\n/;
      if (!banner.test(text)) fail("dist/cli.cjs does not start with scripts/build.mjs's __licImportMeta banner");
      return { contents: text.replace(banner, ''), loader: 'js' };
    });
  },
};

const work = mkdtempSync(join(os.tmpdir(), 'lic-sea-'));
try {
  const main = join(work, 'lic-sea.cjs');
  await build({
    entryPoints: [join(root, 'scripts', 'sea-entry.cjs')],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node22',
    outfile: main,
    // stack traces (LIC_DEBUG=1) name the script `lic-sea.cjs`, not a path of the build's machine
    footer: { js: '//# sourceURL=lic-sea.cjs' },
    plugins: [runtimeRequire],
    legalComments: 'none',
    logLevel: 'warning',
  });
  // the vendor files, compiled on first require of ./vendor/NAME.cjs (scripts/sea-entry.cjs)
  const assets = Object.fromEntries(
    readdirSync(join(root, 'dist', 'vendor'))
      .filter((f) => f.endsWith('.cjs'))
      .map((f) => [`vendor/${f}`, join(root, 'dist', 'vendor', f)]),
  );
  const config = join(work, 'sea-config.json');
  writeFileSync(config, JSON.stringify({ main, output, useSnapshot: true, disableExperimentalSEAWarning: true, assets }));
  mkdirSync(join(output, '..'), { recursive: true });
  // the snapshot is built in an empty environment and directory: nothing of this one to keep
  execFileSync(process.execPath, ['--build-sea', config], { cwd: work, env: {}, stdio: ['ignore', 'ignore', 'inherit'] });
} finally {
  rmSync(work, { recursive: true, force: true });
}
const mib = (statSync(output).size / 2 ** 20).toFixed(0);
process.stderr.write(`build-sea: ${output}, ${mib} MiB (Node ${process.version}, ${process.platform}-${process.arch})\n`);
