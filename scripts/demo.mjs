// `npm run demo`: a throw-away local service on an ephemeral port with a temporary
// profile store, and a short printed session of real `lic` commands against it, each
// printed quoted as a shell would take it, so it can be pasted. Everything lives in a
// temporary directory that is removed at the end; the service's own start-up text (its
// keys, profile "local" and ids to try, all about to be thrown away) is shown only if it
// fails to start.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/lic.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'lic-demo-'));
const env = { ...process.env, LIC_CONFIG_DIR: join(dir, 'config'), LIC_PROFILE: '', LIC_BASE_URL: '', LIC_API_KEY: '' };
const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${s}\x1b[0m` : s);

/** `s` as one shell word: as is when it is plain, else in single quotes (a `'` inside as `'\''`). */
const shellWord = (s) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function run(args, { capture = false } = {}) {
  console.log(`\n${bold(`$ lic ${args.map(shellWord).join(' ')}`)}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'] });
    let out = '';
    child.stdout?.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`lic ${args.join(' ')} exited with ${code}`))));
  });
}

const server = spawn(
  process.execPath,
  [bin, 'serve', '--port', '0', '--db', join(dir, 'demo.db'), '--seed', 'demo', '--keys-file', join(dir, 'keys.json')],
  {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);
let serverErr = '';
server.stderr.on('data', (d) => (serverErr += d));
const url = await new Promise((resolve, reject) => {
  server.on('exit', (code) => reject(new Error(`lic serve exited with ${code}`)));
  createInterface({ input: server.stdout }).once('line', resolve);
}).catch((e) => {
  rmSync(dir, { recursive: true, force: true });
  process.stderr.write(serverErr);
  console.error(`demo failed: ${e.message} (its reason is on the lines above)`);
  process.exit(1);
});
console.log(
  `${bold('A throw-away service')} (lic serve --seed demo) at ${url}:\n` +
    `its database, keys and profile "local" are in ${dir}\n` +
    'and are deleted when the demo ends; the commands below work only while it runs.',
);

let failed = false;
try {
  const created = await run(['keys', 'create', '--perm', '7', '--name', 'demo-key', '--description', 'made by npm run demo'], {
    capture: true,
  });
  const id = /^id\t(\d+)$/m.exec(created)?.[1];
  if (!id) throw new Error('could not read the new key id');
  await run(['keys', 'list']);
  await run(['keys', 'update', id, '--perm', 'read', '--description', 'read-only now']);
  await run(['keys', 'list']);
  await run(['log', 'list', '--take', '8']);
  await run(['log', 'list', '--level', 'Warning', '--since', '24h', '--take', '5']);
  await run(['log', 'purge', '--all', '--yes']);
  await run(['keys', 'delete', id, '--yes']);
  await run(['log', 'list']);
} catch (e) {
  failed = true;
  console.error(`demo failed: ${e.message}`);
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('close', r));
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  failed
    ? ''
    : `\n${bold('Demo done')}: its service, database and profile are gone. Start your own with\n` +
        '`lic serve --seed demo`, then try `lic --help` (`lic` is on the PATH after\n' +
        "`npm link`: see the README's quick start).",
);
process.exitCode = failed ? 1 : 0;
