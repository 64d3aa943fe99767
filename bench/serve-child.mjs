// `lic serve` in a child process, as the bench scripts start it: on port 0, ready once it has
// printed its URL on stdout (what scripts wait for: README "Scripts and exit codes").
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** A database file over this size has its pages checked in the background after the start (src/server/index.ts QUICK_CHECK_MAX_BYTES). */
const CHECKED_IN_BACKGROUND = 256 * 1024 * 1024;

/**
 * Spawns `NODE BIN serve --port 0 ARGS` with `env` and resolves once it prints its URL (rejects
 * with its stderr if it exits first); the child is added to `children` (which the caller kills
 * at exit) until stop(). With `checked`, and a `--db` file over 256 MiB, it resolves only once
 * the background check of the file's pages has ended (~3 s of a core for a 1M-entry log, which
 * would share the cores with what a bench times; `--verbose` makes lic serve say when).
 */
export async function spawnServe(children, { node = process.execPath, bin, args, env, checked = false }) {
  const db = args[args.indexOf('--db') + 1];
  const wait = checked && args.includes('--db') && (statSync(db, { throwIfNoEntry: false })?.size ?? 0) > CHECKED_IN_BACKGROUND;
  const child = spawn(node, [bin, 'serve', '--port', '0', ...(wait ? ['--verbose'] : []), ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`lic serve exited ${code}: ${stderr}`)));
  });
  for (let i = 0; wait && !/pages were checked in the background/.test(stderr); i++) {
    if (i > 12000) throw new Error(`lic serve: no end of the background check in 600 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    child,
    stderr: () => stderr,
    stop: () =>
      new Promise((r) => {
        child.once('exit', r);
        child.kill('SIGTERM');
      }).then(() => children.delete(child)),
  };
}
