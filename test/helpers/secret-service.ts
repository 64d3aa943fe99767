/**
 * A real Secret Service for the keyring tests: a private D-Bus session bus (dbus-run-session)
 * with GNOME Keyring on it, in a temporary HOME, so no test touches the keyring of the person
 * running them. Debian: `apt-get install dbus gnome-keyring libsecret-tools` (.ci/keyring.sh);
 * the tests skip, saying so, without them.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp.js';

/** The programs the keyring tests need: each is looked up on the PATH. */
const PROGRAMS = ['dbus-run-session', 'dbus-send', 'gnome-keyring-daemon', 'secret-tool'];

/** The programs of PROGRAMS that are not installed (empty: the keyring tests can run). */
export const missingSecretServicePrograms: string[] = PROGRAMS.filter((p) => {
  try {
    execFileSync('sh', ['-c', `command -v ${p}`], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
});

/** A bus config with no service directory: nothing on it provides org.freedesktop.secrets. */
const BUS_WITHOUT_SERVICES = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:tmpdir=/tmp</listen>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>
`;

export interface SecretService {
  /** what a spawned lic needs to reach this bus (DBUS_SESSION_BUS_ADDRESS) */
  env: Record<string, string>;
  /** `secret-tool lookup service lic username ACCOUNT`: the secret, or undefined when there is none */
  lookup(account: string): string | undefined;
  /** the accounts of service "lic" in this keyring (`secret-tool search --all`) */
  accounts(): string[];
  /** locks the login keyring (the Secret Service's Lock method) */
  lock(): void;
  /** ends the session: the bus and GNOME Keyring with it */
  close(): Promise<void>;
}

/**
 * Starts a session bus and resolves once it is up. `keyring`: `unlocked` (GNOME Keyring's
 * login keyring made and unlocked with a password, as a desktop login does), `absent`
 * (GNOME Keyring is started by D-Bus activation on first use, with no login keyring), or
 * `none` (a bus on which nothing provides the Secret Service).
 */
export async function startSecretService(keyring: 'unlocked' | 'absent' | 'none'): Promise<SecretService> {
  const home = tempDir('lic-keyring-home-');
  mkdirSync(join(home, '.cache'), { recursive: true });
  const args: string[] = [];
  if (keyring === 'none') {
    const conf = join(home, 'bus.conf');
    writeFileSync(conf, BUS_WITHOUT_SERVICES);
    args.push(`--config-file=${conf}`);
  }
  const unlock = keyring === 'unlocked' ? 'printf %s test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null\n' : '';
  // the session lasts until our stdin closes
  const script = `set -e\n${unlock}echo "BUS=$DBUS_SESSION_BUS_ADDRESS"\ncat >/dev/null\n`;
  // a clean environment: no DISPLAY (GNOME Keyring's unlock prompt can't show), our HOME
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, XDG_RUNTIME_DIR: home, XDG_DATA_HOME: join(home, 'data') };
  const child: ChildProcessWithoutNullStreams = spawn('dbus-run-session', [...args, '--', 'sh', '-c', script], { env, stdio: 'pipe' });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no session bus after 15 s: ${err}`)), 15_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /BUS=(\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`dbus-run-session exited (${code}): ${err}`)));
  });
  const busEnv = { ...env, DBUS_SESSION_BUS_ADDRESS: address };
  const run = (cmd: string, argv: string[]) =>
    execFileSync(cmd, argv, { env: busEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return {
    env: { DBUS_SESSION_BUS_ADDRESS: address },
    lookup(account) {
      try {
        return run('secret-tool', ['lookup', 'service', 'lic', 'username', account]);
      } catch {
        return undefined;
      }
    },
    accounts() {
      let text: string;
      try {
        text = run('secret-tool', ['search', '--all', 'service', 'lic']);
      } catch {
        return [];
      }
      return [...text.matchAll(/^attribute\.username = (.*)$/gm)].map((m) => m[1]!);
    },
    lock() {
      run('dbus-send', [
        '--session',
        '--print-reply',
        '--dest=org.freedesktop.secrets',
        '/org/freedesktop/secrets',
        'org.freedesktop.Secret.Service.Lock',
        'array:objpath:/org/freedesktop/secrets/collection/login',
      ]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}
