/**
 * Runs `lic ARGS` in-process like test/helpers/cli.ts runCli, but with stdin and stdout
 * as bytes: runCli joins stdout into a string and encodes stdin as UTF-8, which would
 * mangle a binary resource (a .snk key pair) on its way through `--data-file -` or
 * `--data-out -`.
 */
import { main } from '../../../src/cli/main.js';
import type { Context } from '../../../src/cli/context.js';
import { tempDir } from '../../helpers/cli.js';

export interface BytesResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

export async function runCliBytes(args: string[], o: { env: Record<string, string>; stdin?: Buffer }): Promise<BytesResult> {
  const out: Buffer[] = [];
  let stderr = '';
  const ctx: Context = {
    env: { ...o.env },
    stdout: { write: (s: string | Uint8Array) => out.push(Buffer.from(s as never)), isTTY: false },
    stderr: { write: (s: string) => (stderr += s), isTTY: false },
    stdin: { isTTY: false, readAll: async () => o.stdin ?? Buffer.alloc(0) },
    prompter: {
      confirm: async (m) => {
        throw new Error(`unexpected prompt: ${m}`);
      },
      secret: async (m) => {
        throw new Error(`unexpected prompt: ${m}`);
      },
    },
    now: () => new Date(),
    configDir: tempDir(),
    dataDir: tempDir('lic-data-'),
    onInterrupt: () => () => {},
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  };
  const code = await main(args, ctx);
  return { code, stdout: Buffer.concat(out), stderr };
}
