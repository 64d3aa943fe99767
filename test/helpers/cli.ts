import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { testContext, type TestContextOptions } from './context.js';

export { tempDir } from './temp.js';

/** How runCli builds its context: test/helpers/context.ts testContext's options. */
export type RunOptions = TestContextOptions;

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** prompts that were shown */
  prompts: string[];
}

/**
 * Runs `lic ARGS` in-process with a test context (testContext) and resolves when it is
 * done; nothing touches the real process or home. The config and data dirs it makes
 * itself (none given) are fresh per call and removed when it returns (a fuzz tier makes
 * thousands of calls); a test that reads them afterwards passes its own.
 */
export async function runCli(args: string[], o: RunOptions = {}): Promise<RunResult> {
  const own: string[] = [];
  const ownDir = (prefix: string) => (own.push(mkdtempSync(join(tmpdir(), prefix))), own.at(-1)!);
  const t = testContext({ ...o, configDir: o.configDir ?? ownDir('lic-test-'), dataDir: o.dataDir ?? ownDir('lic-data-') });
  try {
    const code = await main(args, t.ctx);
    return { code, stdout: t.stdout(), stderr: t.stderr(), prompts: t.prompts };
  } finally {
    for (const dir of own) rmSync(dir, { recursive: true, force: true });
  }
}

/** Env that points the CLI at a service with a key, bypassing profiles. */
export const envFor = (svc: { url: string }, key: string) => ({ LIC_BASE_URL: svc.url, LIC_API_KEY: key });
