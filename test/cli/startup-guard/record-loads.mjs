// Module hooks (node:module register) for test/cli/startup-guard.test.ts: appends the URL
// of every ES module the process loads to the file named by LIC_GUARD_LOG, one a line.
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  if (process.env.LIC_GUARD_LOG) appendFileSync(process.env.LIC_GUARD_LOG, `${url}\n`);
  return nextLoad(url, context);
}
