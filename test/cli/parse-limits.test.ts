// Cross-cutting: out-of-range numbers for the numeric flags of many verbs; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
import { describe, expect, it } from 'vitest';
import { closedPort } from '../helpers/fake-server.js';
import { runCli } from '../helpers/cli.js';

// values that parse as numbers but are out of any sane range: usage errors naming the
// flag (exit 2), never a RangeError (exit 1) or a secret echoed back
describe('flag values at the edges', () => {
  it.each([
    [['log', 'list', '--since', '99999999999999d'], "option '--since <time>'", 'within the years 0000..9999'],
    [['log', 'list', '--until', '9999999999w'], "option '--until <time>'", 'within the years 0000..9999'],
    [['keys', 'create', '--perm', '7', '--expires', '999999999999d'], "option '--expires <time>'", 'within the years 0000..9999'],
    [['log', 'tail', '-f', '--interval', '1000000h'], "option '--interval <duration>'", 'from 1ms to 24h'],
    [['log', 'tail', '-f', '--interval', '0.1ms'], "option '--interval <duration>'", 'from 1ms to 24h'],
    [['keys', 'list', '--base-url', 'http://127.0.0.1:1/?x=1'], "option '--base-url <url>'", 'without ?query or #fragment'],
  ])('%j → exit 2 naming the flag', async (args, flag, msg) => {
    const port = await closedPort();
    const r = await runCli(args, { env: { LIC_BASE_URL: `http://127.0.0.1:${port}`, LIC_API_KEY: 'api_aaaaaaaaaaaaaaaaaaaaaaaa' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(flag);
    expect(r.stderr).toContain(msg);
    expect(r.stderr).not.toMatch(/RangeError|\n\s+at /);
  });

  it('--base-url with credentials: exit 2, and the password is not echoed', async () => {
    const r = await runCli(['keys', 'list', '--base-url', 'http://user:hunter2@127.0.0.1:1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('lic: --base-url: the URL must not carry credentials (user:password@); store the API key in a profile.\n');
    expect(r.stderr + r.stdout).not.toContain('hunter2');
  });
});
