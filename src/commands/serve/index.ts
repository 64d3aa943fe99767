import { mkdir, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { UsageError } from '../../cli/errors.js';
import { describeFsError, writeFileAtomic } from '../../cli/files.js';
import type { CommandDeps } from '../../cli/deps.js';
import { DEFAULT_PORT, type Runtime } from '../../cli/runtime.js';
import { keyTable, listeningLine, secretKeyLines, seedHints } from './banner.js';
import { sqliteDriverProblem } from './driver.js';

interface ServeOptions {
  db?: string;
  host: string;
  port: number;
  seed?: string;
  /** false with --no-profile */
  profile: boolean;
  /** save profile "local"'s key in the profile file, not the keyring */
  insecureStorage?: boolean;
  keysFile?: string;
  logRequests?: boolean;
  /** `N/DURATION` of the failed-authentication guard, e.g. `5/60s`; `0` = off */
  authFailLimit?: string;
}

function parsePort(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) > 65535) throw new InvalidArgumentError('expected a port 0..65535 (0 = any free port).');
  return Number(v);
}

/**
 * `lic serve`: runs the local reference service until SIGINT/SIGTERM. Prints the URL it
 * bound on stdout (one line, for scripts, and the last one printed); keys made on this
 * start go to stderr once as a table, or to `--keys-file` (mode 0600). Saves the
 * Administrator key as profile `local`, in the keyring as `lic profile add` does (the file
 * with a notice when none is reachable); a restart (on another port) brings that profile's
 * URL along. With --seed, a hint to try the data with; with --verbose the ids to try
 * (seededSummary: customer code, products' releases and templates, the log's span).
 * Without a working better-sqlite3 it throws one line naming what is missing
 * (sqliteDriverProblem): exit 1. A database another `lic serve` serves is refused, naming
 * its process and URL (DatabaseInUseError, exit 1); a start that fails (that one, a port in
 * use, a bad dataset) leaves no file or directory it made. A database damaged in its middle
 * is refused in one line (exit 1): before listening up to 256 MiB; a larger one is checked in
 * the background (RunningService.check), and damage found then stops the service as a signal
 * would, with that same line and exit 1 (nothing found: a line with --verbose). The start-up
 * text is ./banner.ts.
 */
async function runServe(opts: ServeOptions, rt: Runtime): Promise<void> {
  const ctx = rt.ctx;
  // first, before the service's modules load: a missing or unloadable driver is one line, exit 1
  const driverProblem = sqliteDriverProblem();
  if (driverProblem) throw new Error(driverProblem);
  const { startService, SeedError, parseAuthFailLimit } = await import('../../server/index.js');
  const authFailLimit = opts.authFailLimit === undefined ? undefined : parseAuthFailLimit(opts.authFailLimit);
  if (opts.authFailLimit !== undefined && !authFailLimit) {
    throw new UsageError(
      '--auth-fail-limit: expected N/DURATION, failures allowed per window, such as 5/60s or 20/10m (window 1s..24h); 0 turns the guard off',
    );
  }
  const dbPath = opts.db ?? join(await ctx.dataDir(), 'lic.db');
  if (dbPath !== ':memory:' && (await stat(dbPath).catch(() => undefined))?.isDirectory())
    throw new UsageError(`--db ${dbPath}: is a directory; give the database file, e.g. --db ${join(dbPath, 'lic.db')}`);
  // the database and its key file are 0600; the directories made for them are the owner's alone too, whatever the umask
  const madeDir =
    dbPath !== ':memory:'
      ? await mkdir(dirname(dbPath), { recursive: true, mode: 0o700 }).catch((e: unknown) => {
          // mkdir -p meeting a file where a directory should be: EEXIST or ENOTDIR
          const code = (e as NodeJS.ErrnoException).code;
          const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'a part of it is a file, not a directory' : describeFsError(e);
          throw new UsageError(`--db ${dbPath}: cannot make its directory ${dirname(dbPath)}: ${why}`);
        })
      : undefined;
  let svc;
  try {
    svc = await startService({
      dbPath,
      host: opts.host,
      port: opts.port,
      seed: opts.seed,
      now: ctx.now,
      authFailLimit,
      secretKey: ctx.env.LIC_SECRET_KEY || undefined,
      logger: opts.logRequests ? { write: (line: string) => ctx.stderr.write(line) } : false,
      warn: (line) => rt.out.warn(`lic serve: ${line}`),
      quickCheckMaxBytes: testQuickCheckMaxBytes(ctx.env.LIC_TEST_QUICK_CHECK_MAX_BYTES),
    });
  } catch (e) {
    // a start that failed leaves nothing behind: startService removed its files, and the directories made for them go too
    if (madeDir) await removeEmptyDirs(dirname(dbPath), madeDir);
    if (e instanceof SeedError) throw new UsageError(`--seed ${e.message}`);
    const code = (e as { code?: string }).code;
    if (code === 'EADDRINUSE')
      throw new Error(`port ${opts.port} on ${opts.host} is already in use; choose another with --port (0 = any free port)`, {
        cause: e,
      });
    if (code === 'EACCES') throw new Error(`not allowed to listen on ${opts.host}:${opts.port}`, { cause: e });
    throw e;
  }
  // The handler stays registered until the service is closed: conf (via atomically's
  // when-exit) re-raises the signal once it has run, and with no handler left that second
  // delivery would kill us before in-flight requests finish. Repeats are harmless here.
  let off = () => {};
  const stopped = new Promise<string>((resolve) => {
    off = ctx.onInterrupt(resolve);
  });
  // the check of a big database's pages, in the background (startService): damage found stops
  // the service as a signal does, and is then the command's error, the start refusal's line (exit 1)
  let damage: string | undefined;
  const damaged = svc.check.then((c) => {
    if (c.outcome === 'damaged') return (damage = c.message);
    if (c.outcome === 'ok' && rt.globals.verbose) {
      rt.out.info(`lic serve: the database's pages were checked in the background: nothing damaged (${((c.ms ?? 0) / 1000).toFixed(1)} s)`);
    }
    return new Promise<never>(() => {});
  });
  try {
    const fresh = svc.issuedKeys.length > 0;
    rt.out.info(fresh ? `lic serve: new database ${dbPath}` : `lic serve: existing database ${dbPath} (keys: those of its first start)`);
    if (svc.secretKeySource.created && svc.secretKeySource.path) for (const l of secretKeyLines(svc.secretKeySource.path)) rt.out.warn(l);
    if (svc.seedSkipped) rt.out.warn('lic serve: --seed ignored: the database already holds data (use a new --db)');
    if (svc.issuedKeys.length > 0) {
      // These keys exist only now: whatever goes wrong saving them, they must reach the user.
      let saved = false;
      if (opts.keysFile) {
        try {
          // whole or not at all, mode 0600 from the start: it holds API keys
          await writeFileAtomic(opts.keysFile, JSON.stringify({ baseUrl: svc.url, keys: svc.issuedKeys }, null, 2) + '\n', { mode: 0o600 });
          rt.out.warn(`lic serve: ${svc.issuedKeys.length} API key(s) written to ${opts.keysFile} (mode 0600)`);
          saved = true;
        } catch (e) {
          rt.out.warn(`lic serve: cannot write --keys-file ${opts.keysFile} (${(e as Error).message}); showing the keys here instead`);
        }
      }
      if (!saved) {
        rt.out.warn('lic serve: new API keys, shown this once:');
        for (const l of keyTable(svc.issuedKeys)) rt.out.warn(l);
      }
      const admin = svc.issuedKeys.find((k) => k.role === 'Administrator');
      if (opts.profile && admin) {
        try {
          const { saveProfileKey, fallbackNotice } = await import('../../config/key-storage.js');
          const { storePath } = await import('../../config/profiles.js');
          const saved = await saveProfileKey(
            () => rt.profiles(),
            storePath(ctx.configDir),
            ctx.keyring,
            'local',
            { baseUrl: svc.url },
            admin.key,
            {
              insecureStorage: opts.insecureStorage,
            },
          );
          const { store } = saved;
          rt.out.warn(
            `lic serve: saved the Administrator key as profile "local"${store.defaultName() === 'local' ? ' (the default)' : ''}, ${saved.keyStore === 'keyring' ? 'in the keyring' : 'in the profile file'}`,
          );
          if (saved.fallbackReason) rt.out.warn(fallbackNotice(saved.fallbackReason));
        } catch (e) {
          if (saved) for (const l of keyTable([admin])) rt.out.warn(l);
          rt.out.warn(
            `lic serve: cannot save profile "local" (${(e as Error).message}); add it yourself with \`lic profile add local --base-url ${svc.url} --api-key-stdin\``,
          );
        }
      }
    } else {
      if (opts.profile) {
        // a restart on another port (--port 0): move profile "local" along, but only when its
        // key belongs to this database, so a profile for some other service is never touched
        const store = await rt.profiles();
        const local = store.get('local');
        const { readProfileKey } = await import('../../config/key-storage.js');
        // a key in a keyring that can't give it now: the profile is left as it is, and that is said
        const key =
          local && local.baseUrl !== svc.url
            ? await readProfileKey(ctx.keyring, store.path, 'local', local).catch((e: unknown) => {
                rt.out.warn(`lic serve: profile "local" left unchanged: ${(e as Error).message}`);
                return undefined;
              })
            : undefined;
        if (local && key && svc.ownsKey(key)) {
          store.set('local', { ...local, baseUrl: svc.url });
          rt.out.info(`lic serve: profile "local" now points at ${svc.url}`);
        }
      }
    }
    // the ids to try: one hint on a seeded first start, all of them with --verbose
    if ((fresh && opts.seed) || rt.globals.verbose) {
      const { seededSummary } = await import('../../server/index.js');
      for (const l of seedHints(seededSummary(svc.db), Boolean(rt.globals.verbose))) rt.out.info(l);
    }
    rt.out.info(listeningLine(svc.url, ctx.stdout.isTTY));
    // the URL on stdout is the signal scripts wait for: by now the profile and keys file are written
    ctx.stdout.write(`${svc.url}\n`);
    const sig = await Promise.race([stopped, damaged]);
    if (damage === undefined) rt.out.info(`lic serve: ${sig}: finishing in-flight requests and closing the database`);
  } finally {
    // in-flight requests get SHUTDOWN_GRACE_MS to finish; then their connections are dropped
    const force = setTimeout(() => svc.app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    try {
      await svc.close();
    } finally {
      clearTimeout(force);
      off();
    }
  }
  if (damage !== undefined) throw new Error(damage);
}

/**
 * LIC_TEST_QUICK_CHECK_MAX_BYTES, for tests only (undocumented): the size over which the
 * database is checked in the background rather than before listening, so a small damaged
 * file takes that path. Anything but a whole number is ignored.
 */
function testQuickCheckMaxBytes(v: string | undefined): number | undefined {
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** Removes `dir` and its parents up to and including `top` while they are empty (the directories `mkdir -p` made). */
async function removeEmptyDirs(dir: string, top: string): Promise<void> {
  for (let d = dir; ; d = dirname(d)) {
    try {
      await rmdir(d);
    } catch {
      return;
    }
    if (d === top || dirname(d) === d) return;
  }
}

/** How long `lic serve` waits for in-flight requests on SIGINT/SIGTERM. */
const SHUTDOWN_GRACE_MS = 10_000;

/** `lic serve`: the local reference service (loaded by dynamic import only here). */
export function registerServe(program: Command, deps: CommandDeps, run = runServe): void {
  program
    .command('serve')
    .description('Run the local reference service (fastify + SQLite) for trying lic and for tests')
    .option('--db <path>', 'SQLite database file, or :memory: (default: lic.db in the user data dir)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port; 0 = any free port', parsePort, DEFAULT_PORT)
    .option('--seed <dataset>', 'load a dataset into an empty database: "demo" or a JSON file')
    .option('--keys-file <path>', 'write the API keys made on this start to this file (0600) instead of stderr')
    .option('--no-profile', 'do not save the Administrator key as profile "local"')
    .option('--insecure-storage', 'save profile "local"\'s key in the profile file (mode 0600), not the keyring')
    .option('--log-requests', 'log each request to stderr')
    .option(
      '--auth-fail-limit <n/window>',
      'failed authentications allowed per address and window before it is refused with 429 for a while (default 5/60s; 0 = off)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  lic serve                      # http://127.0.0.1:8765, profile "local"\n  lic serve --seed demo --db /tmp/demo.db --port 0',
    )
    .action(async (o: ServeOptions, cmd: Command) => {
      // serve's own --no-profile shadows the global --profile, so build the runtime from the root's flags
      await run(o, deps.runtimeOf(cmd.parent!));
    });
}
