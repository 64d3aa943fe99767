/**
 * Runs `lic ARGS` in-process like test/helpers/cli.ts runCli, but with stdin and stdout
 * as bytes: runCli joins stdout into a string and encodes stdin as UTF-8, which would
 * mangle a binary resource (a .snk key pair) on its way through `--data-file -` or
 * `--data-out -`.
 */
import { main } from '../../../src/cli/main.js';
import { testContext } from '../../helpers/context.js';

export interface BytesResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** `lic ARGS` with `stdin` bytes; resolves to the exit code, stdout's bytes and stderr. */
export async function runCliBytes(args: string[], o: { env: Record<string, string>; stdin?: Buffer }): Promise<BytesResult> {
  const t = testContext({ env: o.env, stdin: o.stdin ?? Buffer.alloc(0) });
  const code = await main(args, t.ctx);
  return { code, stdout: t.stdoutBytes(), stderr: t.stderr() };
}
