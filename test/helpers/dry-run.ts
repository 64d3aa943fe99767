/**
 * `--dry-run` against the real service behind a recording proxy, for the test files of the
 * write verbs and the cross-cutting test/cli/dry-run.test.ts: `useDryRun(svc)` after
 * `useService()` starts the proxy in a beforeAll and closes it in an afterAll.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { runCli, type RunOptions, type RunResult } from './cli.js';
import { startRecordingProxy, type RecordingProxy } from './recording-proxy.js';
import { http, type TestService } from './service.js';

/** What useDryRun gives a test file (each member usable once the beforeAll has run). */
export interface DryRunHandle {
  /** the recording proxy in front of the service: `url` to point the CLI at, `seen` the requests that reached it */
  proxy: RecordingProxy;
  /** `lic ARGS` in-process through the proxy with the Administrator key (o.env adds to or unsets it) */
  lic(args: string[], o?: RunOptions): Promise<RunResult>;
  /** Runs `args`, expects exit 0 and exactly one JSON line on stdout, and that nothing but GETs reached the service nor the log grew; → the plan and the requests sent. */
  dryRun(args: string[], o?: RunOptions): Promise<RunResult & { plan: any; sent: string[] }>;
  /** Total log entries now (the audit trail: every write through the API adds one). */
  logTotal(): Promise<number>;
  /** the Administrator key as a plan shows it: redacted to its first 8 characters and `…` */
  prefix(): string;
}

/** Starts a recording proxy in front of `svc` (a useService handle) for the calling file's dry runs. */
export function useDryRun(svc: TestService): DryRunHandle {
  let started: RecordingProxy | undefined;
  beforeAll(async () => {
    started = await startRecordingProxy(svc.url);
  });
  afterAll(async () => {
    await started?.close();
  });
  const proxy = new Proxy({} as RecordingProxy, {
    get: (_, key) => {
      if (!started) throw new Error('useDryRun: the proxy starts in beforeAll; use it inside a test or a hook');
      return Reflect.get(started, key);
    },
  });
  const lic = (args: string[], o: RunOptions = {}) =>
    runCli(args, { ...o, env: { LIC_BASE_URL: proxy.url, LIC_API_KEY: svc.adminKey, ...o.env } });
  const logTotal = async (): Promise<number> => (await http(svc, 'GET', '/v1/log?take=0', { key: svc.adminKey })).body.totalLogEntriesCount;
  async function dryRun(args: string[], o: RunOptions = {}) {
    const before = await logTotal();
    const from = proxy.seen.length;
    const r = await lic(args, o);
    expect(r.code, r.stderr).toBe(0);
    // one JSON object: one line when piped, pretty on a terminal
    if (!o.tty) expect(r.stdout.endsWith('\n') && r.stdout.trimEnd().split('\n')).toHaveLength(1);
    const plan = JSON.parse(r.stdout);
    expect(proxy.seen.slice(from).filter((l) => !l.startsWith('GET '))).toEqual([]);
    expect(await logTotal()).toBe(before);
    expect(r.stdout + r.stderr).not.toContain(svc.adminKey);
    return { ...r, plan, sent: proxy.seen.slice(from) };
  }
  return { proxy, lic, dryRun, logTotal, prefix: () => `${svc.adminKey.slice(0, 8)}…` };
}
