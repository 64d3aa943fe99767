import { setTimeout as delay } from 'node:timers/promises';
import envPaths from 'env-paths';
import type { Context } from './context.js';

/**
 * The real world for bin/lic.js: process streams, env, clock, signals, TTY prompts
 * (written to stderr so stdout carries data only). The only module besides bin/ that
 * touches `process`.
 */
export function systemContext(): Context {
  const env = process.env;
  return {
    env,
    stdout: {
      write: (s: string) => process.stdout.write(s),
      get isTTY() {
        return Boolean(process.stdout.isTTY);
      },
      get columns() {
        return process.stdout.columns;
      },
    },
    stderr: {
      write: (s: string) => process.stderr.write(s),
      get isTTY() {
        return Boolean(process.stderr.isTTY);
      },
      get columns() {
        return process.stderr.columns;
      },
    },
    stdin: {
      isTTY: Boolean(process.stdin.isTTY),
      async readAll() {
        const chunks: Buffer[] = [];
        for await (const c of process.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
        return Buffer.concat(chunks);
      },
    },
    prompter: {
      async confirm(message) {
        const { default: confirm } = await import('@inquirer/confirm');
        return confirm({ message, default: false }, { output: process.stderr });
      },
      async secret(message) {
        const { default: password } = await import('@inquirer/password');
        return password({ message, mask: false }, { output: process.stderr });
      },
    },
    now: () => new Date(),
    configDir: env.LIC_CONFIG_DIR || undefined,
    dataDir: env.LIC_DATA_DIR || defaultDataDir(),
    onInterrupt(handler) {
      const h = (sig: NodeJS.Signals) => handler(sig);
      process.on('SIGINT', h);
      process.on('SIGTERM', h);
      return () => {
        process.off('SIGINT', h);
        process.off('SIGTERM', h);
      };
    },
    sleep: (ms, signal) => delay(ms, undefined, { signal }).catch(() => undefined),
  };
}

/** The platform's data dir for lic (`~/.local/share/lic` on Linux), by env-paths. */
function defaultDataDir(): string {
  return envPaths('lic', { suffix: '' }).data;
}
