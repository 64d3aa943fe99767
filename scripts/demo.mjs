// `npm run demo`: a throw-away local service on an ephemeral port with a temporary
// profile store, and a short printed session of real `lic` commands against it.
// Everything lives in a temporary directory that is removed at the end.
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

function run(args, { capture = false } = {}) {
  console.log(`\n${bold(`$ lic ${args.join(' ')}`)}`);
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
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const url = await new Promise((resolve, reject) => {
  server.on('exit', (code) => reject(new Error(`lic serve exited with ${code}`)));
  createInterface({ input: server.stdout }).once('line', resolve);
}).catch((e) => {
  rmSync(dir, { recursive: true, force: true });
  console.error(`demo failed: ${e.message} (its reason is on the lines above)`);
  process.exit(1);
});
console.log(`${bold('local service:')} ${url} (database and profile "local" in ${dir})`);

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
    : `\n${bold('Demo done.')} Start your own service with \`lic serve --seed demo\` (it prints what to try) and try \`lic --help\`; \`lic\` is on the PATH after \`npm link\` (see the README's quick start).`,
);
process.exitCode = failed ? 1 : 0;
