import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/lic.js', import.meta.url));

export interface SpawnResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Spawns the real `bin/lic.js` with pipes (not a TTY); resolves when it exits. */
export function spawnLic(args: string[], o: { env?: Record<string, string>; stdin?: string; timeoutMs?: number } = {}): Promise<SpawnResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...o.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(o.stdin ?? '');
  });
}

/**
 * Runs `lic ARGS` under a pseudo-terminal with util-linux `script`, so stdin/stdout/stderr
 * are all TTYs; returns the exit code and everything the terminal showed.
 */
export function spawnLicTty(args: string[], o: { env?: Record<string, string>; input?: string } = {}): Promise<{ code: number | null; output: string }> {
  const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const cmd = [process.execPath, BIN, ...args].map(shellQuote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', cmd, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TERM: 'xterm', COLUMNS: '120', ...o.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
    if (o.input !== undefined) {
      // give the prompt a moment to appear before typing
      setTimeout(() => child.stdin.write(o.input!), 600);
    }
  });
}
