// Cross-cutting: `--json FIELDS` over every command — honoured where a command chooses fields (the lists, `resources get`, `templates show`), refused before anything is sent everywhere else.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { envFor, runCli } from '../helpers/cli.js';
import { testContext } from '../helpers/context.js';
import { useService } from '../helpers/fixtures.js';

const { svc } = useService();

/** Each leaf command with `--json`, and whether its help says the flag takes fields. */
async function jsonCommands(): Promise<Record<string, boolean>> {
  const out: Record<string, boolean> = {};
  const walk = (c: Command, path: string[]) => {
    for (const sub of c.commands) {
      if (sub.commands.length) walk(sub, [...path, sub.name()]);
      const json = sub.options.find((o) => o.long === '--json');
      if (!sub.commands.length && json) out[[...path, sub.name()].join(' ')] = json.description.includes('with comma-separated fields');
    }
  };
  walk(await buildProgram(testContext().ctx, [], { allNouns: true }), []);
  return out;
}

describe('--json FIELDS', () => {
  it('is offered with fields by the lists, resources get and templates show only', async () => {
    const withFields = Object.entries(await jsonCommands())
      .filter(([, f]) => f)
      .map(([c]) => c)
      .sort();
    expect(withFields).toEqual(
      [
        'assemblies list',
        'keys list',
        'log list',
        'orders list',
        'products list',
        'resources get',
        'resources list',
        'templates list',
        'templates show',
      ].sort(),
    );
  });

  it('on a write is a usage error (exit 2) before the request: no key is made', async () => {
    const env = envFor(svc, svc.adminKey);
    const before = JSON.parse((await runCli(['keys', 'list', '--json', 'id'], { env })).stdout) as { apiKeys: unknown[] };
    const r = await runCli(['keys', 'create', '--perm', '1', '--json', 'apiKeyId'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('lic: --json apiKeyId: `lic keys create` has no fields to choose: give --json alone and pick fields with jq\n');
    const after = JSON.parse((await runCli(['keys', 'list', '--json', 'id'], { env })).stdout) as { apiKeys: unknown[] };
    expect(after.apiKeys).toHaveLength(before.apiKeys.length);
  });

  it('on a command that chooses fields, prints only those', async () => {
    const r = await runCli(['keys', 'list', '--json', 'id,name'], { env: envFor(svc, svc.adminKey) });
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout) as { apiKeys: Record<string, unknown>[] };
    expect(body.apiKeys.length).toBeGreaterThan(0);
    for (const k of body.apiKeys) expect(Object.keys(k)).toEqual(['id', 'name']);
  });

  it('--json alone still prints the reply on a write', async () => {
    const r = await runCli(['keys', 'create', '--perm', '1', '--json'], { env: envFor(svc, svc.adminKey) });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ success: true, apiKeyId: expect.any(Number) as number });
  });
});
