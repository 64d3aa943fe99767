/**
 * `GET /v1/log` reads the next page of a walk by id ahead (src/server/log/read-ahead.ts):
 * `lic log list --all` gets its pages after the first from it, byte for byte what a read
 * then gives; a page read ahead is never served once the log has changed (an entry deleted), nor to another
 * request.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readAheadServed } from '../../src/server/log/read-ahead.js';
import { runCli } from '../helpers/cli.js';
import { http } from '../helpers/service.js';
import { ndjson, useService } from '../helpers/fixtures.js';
import { insertLog } from '../cli/list/harness.js';

const { svc, env } = useService();
beforeAll(() => {
  insertLog(svc.db, 3500);
});

/** Lets the service run what it queued after its last reply (the read ahead). */
const idle = () => new Promise((r) => setTimeout(r, 50));
const get = async (query: string) => {
  const r = await http(svc, 'GET', `/v1/log?${query}`, { key: svc.adminKey });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { logEntries: { id: number }[]; totalLogEntriesCount: number };
};
const walk = (filter: string | undefined, take = 10) =>
  `sort=${encodeURIComponent('id desc')}&take=${take}${filter === undefined ? '' : `&filter=${encodeURIComponent(filter)}`}`;

describe('the log read ahead', () => {
  it('lic log list --all: every page after the first is the one read ahead, and the output is the log', async () => {
    const before = readAheadServed(svc.db);
    const ids = (svc.db.prepare('SELECT id FROM log ORDER BY id DESC').pluck().all() as number[]).slice();
    const r = await runCli(['log', 'list', '--all', '-o', 'ndjson'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout).map((e) => e.id)).toEqual(ids);
    expect(readAheadServed(svc.db) - before).toBe(Math.ceil(ids.length / 1000) - 1);
  });

  it('a page read ahead is the text a read of it gives', async () => {
    const first = await get(walk(undefined));
    const last = first.logEntries.at(-1)!.id;
    await idle();
    const before = readAheadServed(svc.db);
    const ahead = await http(svc, 'GET', `/v1/log?${walk(`id < ${last}`)}`, { key: svc.adminKey });
    expect(readAheadServed(svc.db)).toBe(before + 1);
    // the same page asked otherwise (a filter no walk writes): read, not kept
    const read = await http(svc, 'GET', `/v1/log?${walk(`id < ${last} and id > 0`)}`, { key: svc.adminKey });
    expect(readAheadServed(svc.db)).toBe(before + 1);
    expect(JSON.stringify(ahead.body)).toBe(JSON.stringify(read.body));
    expect(ahead.body.logEntries).toHaveLength(10);
  });

  it('a user filter walked likewise: (filter) and (id < last)', async () => {
    const first = await get(walk('level = "Warning"'));
    await idle();
    const before = readAheadServed(svc.db);
    const next = await get(walk(`(level = "Warning") and (id < ${first.logEntries.at(-1)!.id})`));
    expect(readAheadServed(svc.db)).toBe(before + 1);
    expect(next.totalLogEntriesCount).toBe(first.totalLogEntriesCount - 10);
  });

  it('two walks at once: each gets its own page read ahead', async () => {
    const one = await get(walk(undefined));
    const two = await get(walk('level = "Warning"'));
    await idle();
    const before = readAheadServed(svc.db);
    await get(walk(`id < ${one.logEntries.at(-1)!.id}`));
    await get(walk(`(level = "Warning") and (id < ${two.logEntries.at(-1)!.id})`));
    expect(readAheadServed(svc.db)).toBe(before + 2);
  });

  it('not served once the log has changed: the next page has the new total', async () => {
    const first = await get(walk(undefined));
    await idle();
    // the oldest entry deleted between the two pages: one fewer on the next page's side
    const oldest = svc.db.prepare('SELECT min(id) FROM log').pluck().get() as number;
    svc.db.prepare('DELETE FROM log WHERE id = ?').run(oldest);
    expect(svc.db.prepare('SELECT min(id) FROM log').pluck().get()).toBeGreaterThan(oldest);
    const before = readAheadServed(svc.db);
    const next = await get(walk(`id < ${first.logEntries.at(-1)!.id}`));
    expect(readAheadServed(svc.db)).toBe(before);
    expect(next.totalLogEntriesCount).toBe(first.totalLogEntriesCount - 10 - 1);
  });

  it('not served to another request (another take)', async () => {
    const first = await get(walk(undefined));
    await idle();
    const before = readAheadServed(svc.db);
    const next = await get(walk(`id < ${first.logEntries.at(-1)!.id}`, 7));
    expect(readAheadServed(svc.db)).toBe(before);
    expect(next.logEntries).toHaveLength(7);
  });
});
