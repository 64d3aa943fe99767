/**
 * `lic diff -f FILE` against a service the file was applied to (two-services.ts: the demo's
 * configuration exported and applied to a second service): no difference from a service in
 * the default-stripping style; a changed permission is one update in the plan (json and
 * text) and then one PUT; a removed expiry is an update to none. Reading a state file
 * (validation, hostile shapes, quoting hints) is file.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { envFor, runCli } from '../../helpers/cli.js';
import { startTransformProxy, type TransformProxy } from '../../helpers/transform-proxy.js';
import { keysOf, useTwoServices } from './two-services.js';

const { dst, dir, file, toDst, writesSince, proxy } = useTwoServices({ applied: true });

describe('export, apply to a second service, diff', () => {
  it('reads the same from a service in the default-stripping style', async () => {
    const strip: TransformProxy = await startTransformProxy(dst.url, 'strip-defaults');
    try {
      const r = await runCli(['diff', '-f', file, '--exit-code', '--prune'], { env: envFor(strip, dst.adminKey) });
      expect(r.code, r.stderr).toBe(0);
      expect(strip.requests).toBeGreaterThan(0);
    } finally {
      await strip.close();
    }
  });
});

describe('changes', () => {
  it('a changed permission is one update in the plan and one PUT', async () => {
    const changed = join(dir, 'changed.yaml');
    const doc = parse(readFileSync(file, 'utf8'));
    doc.keys.find((k: { name: string }) => k.name === 'Sales demo key').permissions = 1;
    writeFileSync(changed, JSON.stringify(doc));
    const d = await toDst(['diff', '-f', changed, '-o', 'json', '--exit-code']);
    expect(d.code).toBe(1);
    const plan = JSON.parse(d.stdout);
    expect(plan).toMatchObject({ changes: 1, create: 0, update: 1, delete: 0 });
    expect(plan.steps[0]).toMatchObject({
      action: 'update',
      noun: 'keys',
      item: 'Sales demo key',
      changes: [{ field: 'permissions', from: 7, to: 1 }],
    });
    const text = await toDst(['diff', '-f', changed]);
    expect(text.stdout).toContain('~ update API key "Sales demo key"');
    expect(text.stdout).toContain('permissions: 7 (rwd) → 1 (r--)');

    const from = proxy.seen.length;
    const r = await toDst(['apply', '-f', changed]);
    expect(r.code, r.stderr).toBe(0);
    expect(writesSince(from)).toEqual(['PUT /v1/api-keys']);
    expect(keysOf(dst).find((k) => k.name === 'Sales demo key')!.permissions).toBe(1);
    // back as the file says
    expect((await toDst(['apply', '-f', file])).code).toBe(0);
  });

  it('a removed expiry is an update to none', async () => {
    const id = keysOf(dst).find((k) => k.name === 'Sales demo key')!.id;
    expect((await toDst(['keys', 'update', String(id), '--expires', '2099-01-01T00:00:00Z'])).code).toBe(0);
    const d = await toDst(['diff', '-f', file, '-o', 'json']);
    expect(JSON.parse(d.stdout).steps[0].changes).toEqual([{ field: 'expireDate', from: '2099-01-01T00:00:00.000Z', to: null }]);
    expect((await toDst(['apply', '-f', file])).code).toBe(0);
    expect(keysOf(dst).find((k) => k.name === 'Sales demo key')!.expireDate).toBeNull();
  });
});
