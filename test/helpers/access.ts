import { beforeAll, expect, it } from 'vitest';
import { ROLES } from '../../src/wire.js';
import type { RunningService } from '../../src/server/index.js';
import { addUserWithKey } from './service.js';

export type Call = (key: string) => Promise<{ status: number; body: any }>;

/**
 * The roles × permission-bits matrix of contract §3, as `it` cases in the calling
 * describe: for each [method, needed bit, call], an allowed role with all bits gets 200
 * and without that bit 403 code 7 naming the permission; any other role gets 403 code 7
 * naming its role, even with all bits. Keys are made in a beforeAll, one user per role.
 */
export function itChecksAccess(o: {
  svc: () => RunningService;
  allowed: readonly string[];
  calls: [method: string, bit: number, call: Call][];
  userPrefix: string;
  customerCode: string;
}): void {
  const keys: Record<string, Record<number, string>> = {};
  beforeAll(async () => {
    for (const role of ROLES) {
      keys[role] = {};
      for (const perms of [7, 6, 5, 3]) {
        keys[role]![perms] = await addUserWithKey(
          o.svc(),
          `${o.userPrefix}-${role}`,
          role,
          perms,
          role === 'Customer' ? o.customerCode : undefined,
        );
      }
    }
  });
  for (const [method, bit, call] of o.calls) {
    for (const role of ROLES) {
      if (o.allowed.includes(role)) {
        it(`${method}: ${role} with all bits succeeds; without bit ${bit} gets 403 code 7`, async () => {
          const ok = await call(keys[role]![7]!);
          expect(ok.status, JSON.stringify(ok.body)).toBe(200);
          expect(ok.body).toMatchObject({ success: true, code: 0 });
          const denied = await call(keys[role]![7 ^ bit]!);
          expect(denied.status).toBe(403);
          expect(denied.body).toMatchObject({ success: false, code: 7 });
          expect(denied.body.message).toContain('permission');
        });
      } else {
        it(`${method}: ${role} gets 403 code 7 even with all bits`, async () => {
          const denied = await call(keys[role]![7]!);
          expect(denied.status).toBe(403);
          expect(denied.body).toMatchObject({ success: false, code: 7 });
          expect(denied.body.message).toContain(`role ${role}`);
        });
      }
    }
  }
}
