/**
 * What the `lic log` verb files and test/cli/audit-trail.test.ts share: a service on a clock
 * the test moves (from T0, 2025-01-18T10:00Z), its log read over raw HTTP, and `lic` on it
 * in-process with the Administrator key.
 */
import { expect } from 'vitest';
import { envFor, runCli, type RunOptions } from '../../helpers/cli.js';
import { http, startTestService, type TestService } from '../../helpers/service.js';

export const T0 = Date.parse('2025-01-18T10:00:00.000Z');
/** an hour in milliseconds */
export const H = 3_600_000;

/** A service on a clock the test moves. */
export async function clockedService() {
  const clock = { t: T0 };
  const svc = await startTestService({ now: () => new Date(clock.t) });
  return { svc, clock };
}

/** A log entry as the service lists it. */
export interface Entry {
  id: number;
  message: string;
  messageTemplate: string;
  level: string;
  timeStamp: string;
  exception: string;
  properties: string;
}

/** The newest 1000 entries of `svc`'s log (a query string may add to `take=1000`). */
export async function entries(svc: TestService, query = ''): Promise<Entry[]> {
  const r = await http(svc, 'GET', `/v1/log?take=1000${query}`, { key: svc.adminKey });
  expect(r.status).toBe(200);
  return r.body.logEntries;
}

/** `lic ARGS` in-process against `svc` with its Administrator key. */
export const lic = (svc: TestService, args: string[], o: RunOptions = {}) =>
  runCli(args, { ...o, env: { ...envFor(svc, svc.adminKey), ...o.env } });
