// The package as users get it, run by .ci/run (on the pinned Node), not by `npm test`:
//   1. `npm pack`: the tarball holds what bin/lic.js needs, the man page and completions,
//      and no tests, sources or source maps; its size is printed (README "Installing").
//   2. A global install of it into a temporary prefix with a clean HOME, every compiler made
//      to fail (CC=CXX=false) and no `nodedir` (node-gyp would have to fetch Node's headers
//      from nodejs.org, which this machine cannot reach): it succeeds, compiles nothing (no
//      build/ directory anywhere in the install) and runs no install script; then
//      `lic --version`, `--help`, `completion bash`, the man page linked, `lic serve --port 0`
//      (better-sqlite3's prebuilt binary) and `lic keys list` against it.
// Usage: node scripts/pack-check.mjs [--keep]   (--keep leaves the temporary directory)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const keep = process.argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'lic-pack-check-'));
const started = Date.now();
let failures = 0;

/** Prints a passed or failed check; a failure is counted and makes the script exit 1. */
function check(ok, what, detail = '') {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${!ok && detail ? `\n     ${String(detail).trim().replace(/\n/g, '\n     ')}` : ''}`);
  if (!ok) failures++;
}

/** A clean HOME: nothing but the user's ~/.npmrc without `nodedir` and `python` (a compile would need them). */
function cleanHome(name) {
  const home = join(work, name);
  mkdirSync(home, { recursive: true });
  const rc = join(homedir(), '.npmrc');
  const lines = existsSync(rc) ? readFileSync(rc, 'utf8').split('\n') : [];
  writeFileSync(join(home, '.npmrc'), lines.filter((l) => !/^\s*(nodedir|python)\s*=/.test(l)).join('\n'));
  return home;
}

/** Every directory named `build` under `dir` (a native module compiled there leaves one). */
function buildDirs(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name === 'build')
    .map((e) => join(e.parentPath, e.name));
}

/**
 * The environment of a user with `prefix/bin` first on the PATH and a clean HOME. The machine's
 * network settings (proxy, extra CA certificates) stay; npm's own variables from `npm run`,
 * lic's (LIC_*) and the XDG directories go. npm's cache stays the machine's (the same
 * registry tarballs, fetched once).
 */
function userEnv(home, prefix, extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|LIC_|XDG_)/i.test(k) && k !== 'INIT_CWD'));
  return {
    ...env,
    // without the node_modules/.bin directories `npm run` puts first
    PATH: [
      join(prefix, 'bin'),
      dirname(process.execPath),
      ...(process.env.PATH ?? '/usr/bin:/bin').split(':').filter((d) => !d.includes('node_modules')),
    ].join(':'),
    HOME: home,
    npm_config_cache: process.env.npm_config_cache || join(homedir(), '.npm'),
    npm_config_update_notifier: 'false',
    ...extra,
  };
}

/** The API keys of `lic keys list -o json` (the service's envelope, `apiKeys`); [] when it is not that. */
function apiKeys(stdout) {
  try {
    const keys = JSON.parse(stdout).apiKeys;
    return Array.isArray(keys) ? keys : [];
  } catch {
    return [];
  }
}

/** Runs a command to its end; returns {status, stdout, stderr}. */
function run(cmd, args, env, o = {}) {
  const r = spawnSync(cmd, args, {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: o.timeoutMs ?? 60_000,
    cwd: o.cwd ?? work,
  });
  return { status: r.status, stdout: r.stdout ?? '', stderr: (r.stderr ?? '') + (r.error ? String(r.error) : '') };
}

/** Starts `lic serve --port 0` from an install; resolves with the URL it prints, or rejects with its stderr. */
function startServe(env) {
  const child = spawn('lic', ['serve', '--port', '0', '--db', ':memory:'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 30 s: ${err}`)), 30_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /^(http:\/\/\S+)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (clearTimeout(timer), reject(new Error(`exited ${code}: ${err}`))));
  });
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, err })));
  return { child, url, exited, stderr: () => err };
}

try {
  // 1. the tarball
  const packed = run('npm', ['pack', '--json', '--pack-destination', work], { ...process.env }, { cwd: root, timeoutMs: 300_000 });
  if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  const info = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[')))[0];
  const tarball = join(work, info.filename);
  const files = info.files.map((f) => f.path);
  console.log(
    `tarball ${info.filename}: ${(info.size / 1024).toFixed(0)} kB packed, ${(info.unpackedSize / 1024).toFixed(0)} kB unpacked, ${files.length} files`,
  );
  for (const need of [
    'bin/lic.js',
    'dist/cli.cjs',
    'dist/cli-keys.cjs',
    'dist/cli-log.cjs',
    'dist/command-line.cjs',
    'dist/server.cjs',
    'dist/version.json',
    'dist/help.json',
    'man/lic.1',
    'completions/lic.bash',
    'package.json',
    'README.md',
  ]) {
    check(files.includes(need), `the tarball holds ${need}`);
  }
  const stray = files.filter((f) => /^(test|src|bench|scripts|docs|\.ci)\//.test(f) || f.endsWith('.map') || f.endsWith('.ts'));
  check(stray.length === 0, 'no tests, sources, scripts or source maps in the tarball', stray.join('\n'));
  // every file of dist/ that another requires (dist/vendor/*.cjs, dist/server.cjs: relative
  // paths, as esbuild's metafile lists them; the bundled code's own strings can't be told from
  // imports by reading it) is in the tarball too
  const meta = JSON.parse(readFileSync(join(root, 'build', 'metafile.json'), 'utf8'));
  const imports = [];
  for (const f of files.filter((p) => p.startsWith('dist/') && p.endsWith('.cjs'))) {
    if (!meta.outputs[f]) imports.push([f, `${f} (not in build/metafile.json: a stale dist/?)`]);
    for (const i of meta.outputs[f]?.imports ?? []) if (i.path.startsWith('./')) imports.push([f, posix.join(posix.dirname(f), i.path)]);
  }
  const missing = imports.filter(([, target]) => !files.includes(target));
  check(
    imports.length > 0 && missing.length === 0,
    `the ${imports.length} relative imports in dist/ all resolve inside the tarball`,
    missing.map(([f, t]) => `${f} → ${t}`).join('\n'),
  );
  // 2.3 MB since the noun bundles (dist/cli-NOUN.cjs, scripts/build.mjs): 14 copies of the
  // shared part of dist/cli.cjs, ~2 ms off every command that names a noun
  const limitKb = 3072;
  check(info.size < limitKb * 1024, `the tarball is under ${limitKb} kB`, `${info.size} bytes`);

  // 2. a global install with every compiler failing and no Node headers
  const home = cleanHome('home');
  const prefix = join(work, 'prefix');
  const env = userEnv(home, prefix);
  const t = Date.now();
  const inst = run(
    'npm',
    ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--foreground-scripts', tarball],
    { ...env, CC: 'false', CXX: 'false', npm_config_nodedir: '' },
    { timeoutMs: 600_000 },
  );
  check(
    inst.status === 0,
    `npm install -g of the tarball on Node ${process.versions.node} with CC=CXX=false (${((Date.now() - t) / 1000).toFixed(1)} s)`,
    inst.stderr.slice(-3000),
  );
  const installed = join(prefix, 'lib', 'node_modules', pkg.name);
  const built = existsSync(installed) ? buildDirs(installed) : [];
  check(existsSync(installed) && built.length === 0, 'nothing was compiled (no build/ directory in the install)', built.join('\n'));
  check(!/gyp info|node-gyp rebuild/.test(inst.stdout + inst.stderr), 'no node-gyp step ran', (inst.stdout + inst.stderr).slice(-2000));
  // the package ships its build: the user's npm must have no lifecycle script of ours to approve
  check(
    !/install scripts not covered|allowScripts|\blic@[^ ]* (prepare|install|postinstall)\b/i.test(inst.stdout + inst.stderr),
    'npm install -g asks the user to approve no script',
    (inst.stdout + inst.stderr).slice(-2000),
  );
  const v = run('lic', ['--version'], env);
  check(v.status === 0 && v.stdout.trim().endsWith(pkg.version), `lic --version prints ${pkg.version}`, v.stdout + v.stderr);
  const h = run('lic', ['--help'], env);
  check(h.status === 0 && h.stdout.includes('Usage: lic') && h.stdout.includes('keys'), 'lic --help', h.stdout + h.stderr);
  const c = run('lic', ['completion', 'bash'], env);
  check(c.status === 0 && /^complete .*-F _lic lic$/m.test(c.stdout), 'lic completion bash', c.stdout.slice(0, 500) + c.stderr);
  check(existsSync(join(prefix, 'share', 'man', 'man1', 'lic.1')), 'npm linked the man page to share/man/man1/lic.1');

  const svc = startServe(env);
  let url;
  try {
    url = await svc.url;
    check(true, `lic serve --port 0 (better-sqlite3's prebuilt binary): ${url}`);
  } catch (e) {
    check(false, 'lic serve --port 0 from the install', e.message);
  }
  if (url) {
    // `lic serve` saved its Administrator key as profile "local" in the clean HOME
    const keys = run('lic', ['keys', 'list', '-o', 'json'], env);
    const listed = apiKeys(keys.stdout);
    check(
      keys.status === 0 && listed.length >= 1,
      `lic keys list (${listed.length} key(s)) via profile "local"`,
      keys.stdout + keys.stderr,
    );
    // a root flag first: bin/lic.js finds the noun with dist/command-line.cjs
    const first = run('lic', ['-o', 'json', 'keys', 'list'], env);
    check(first.status === 0 && apiKeys(first.stdout).length === listed.length, 'lic -o json keys list lists the same keys', first.stderr);
    const cr = run('lic', ['keys', 'create', '--name', 'pack-check', '--perm', '1', '-o', 'json'], env);
    check(cr.status === 0 && /api_[a-z0-9]{24}/.test(cr.stdout), 'lic keys create prints the new key', cr.stderr);
  }
  svc.child.kill('SIGTERM');
  const end = await svc.exited;
  if (url) check(end.code === 0, 'lic serve stops on SIGTERM with exit 0', `exit ${end.code} ${end.signal ?? ''}\n${end.err}`);
} catch (e) {
  check(false, 'pack check', e.stack);
} finally {
  if (keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
console.log(`pack check: ${failures === 0 ? 'passed' : `${failures} failure(s)`} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
process.exitCode = failures === 0 ? 0 : 1;
