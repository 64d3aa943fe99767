// Cross-cutting: the list machinery for an endpoint without list parameters; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * runList for an endpoint without the list parameters (`paged: false`, like the customer
 * product list): one request, --limit and --fields applied to the reply client-side.
 * The real log endpoint with a fixed query stands in for such an endpoint.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { listLog } from '../../../src/client/endpoints/log.js';
import { addListOptions, runList, type ListDef } from '../../../src/cli/list/index.js';
import { Runtime } from '../../../src/cli/runtime.js';
import type { OutputFormat } from '../../../src/cli/output.js';
import type { LogEntry } from '../../../src/wire.js';

import { testContext } from '../../helpers/context.js';
import { insertLog } from './harness.js';
import { useService } from '../../helpers/fixtures.js';

const { svc } = useService();
beforeAll(async () => {
  insertLog(svc.db, 20);
});

const DEF: ListDef<LogEntry> = {
  what: 'log entries',
  arrayField: 'logEntries',
  totalField: 'totalLogEntriesCount',
  columns: [{ header: 'ID', get: (e) => e.id }],
  fields: ['id', 'level', 'message'],
  paged: false,
};

async function run(format: OutputFormat, flags: { limit?: number; fields?: string[] }) {
  const h = testContext({ env: { LIC_BASE_URL: svc.url, LIC_API_KEY: svc.adminKey } });
  const rt = new Runtime(h.ctx, { output: format });
  const client = await rt.client();
  await runList(rt, { def: DEF, flags, fetch: () => listLog(client, { take: 10, sort: 'id asc' }) });
  return h.stdout();
}

describe('an unpaged list', () => {
  it('offers only --fields and --limit', () => {
    const cmd = addListOptions(new Command('list'), DEF);
    expect(cmd.options.map((o) => o.long)).toEqual(['--fields', '--limit']);
  });

  it('without flags: the reply as it is', async () => {
    const body = JSON.parse(await run('json', {}));
    expect(body.logEntries).toHaveLength(10);
    expect(body.totalLogEntriesCount).toBe(20);
  });

  it('--limit and --fields cut the reply: json keeps its shape, records carry only the fields', async () => {
    const body = JSON.parse(await run('json', { limit: 3, fields: ['id', 'level'] }));
    expect(body.logEntries).toEqual([
      { id: 1, level: 'Verbose' },
      { id: 2, level: 'Debug' },
      { id: 3, level: 'Information' },
    ]);
    expect(body.totalLogEntriesCount).toBe(20);
    expect(await run('csv', { limit: 2, fields: ['level', 'id'] })).toBe('level,id\nVerbose,1\nDebug,2\n');
  });
});
