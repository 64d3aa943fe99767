// Cross-cutting: --all of any list stops when a service ignores the paging or ends short; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * Paging that cannot run away: against socket-level fakes of services
 * that ignore the paging parameters or end early, `--all` stops at once (exit 1) without
 * printing a record twice, and a run short of the announced total says so on stderr.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { reply, startFake, type Fake } from '../../helpers/fake-server.js';
import { runCli } from '../../helpers/cli.js';
import { ndjson } from '../../helpers/fixtures.js';

const env = (fake: Fake) => ({ LIC_BASE_URL: fake.url, LIC_API_KEY: 'test-key-not-secret' });
const resource = (id: number) => ({ id, name: `r${id}`, type: 'RSA', code: `c${id}`, dataFormat: 'SNK', dataSize: 3 });

let fake: Fake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A service that ignores filter, sort, take and skip: always the same records, announcing a million. */
async function stubborn(ids: number[]): Promise<Fake> {
  return startFake((socket) =>
    reply(
      socket,
      200,
      JSON.stringify({ success: true, code: 0, message: 'OK', resources: ids.map(resource), totalResourcesCount: 1_000_000 }),
    ),
  );
}

describe('--all against a service that ignores the paging filter', () => {
  it('by key: stops at the second page with exit 1, each record printed once, naming what the service did', async () => {
    fake = await stubborn([15, 16, 17]);
    const r = await runCli(['resources', 'list', '--all', '-o', 'ndjson'], { env: env(fake) });
    expect(r.code).toBe(1);
    expect(ndjson(r.stdout).map((x) => x.id)).toEqual([15, 16, 17]);
    expect(fake.requests.length).toBe(2);
    expect(r.stderr).toContain('the service ignored the paging filter (id > 17): page 2 repeated ids up to 17');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('by key, descending (log): the same for id < last', async () => {
    fake = await startFake((socket) =>
      reply(
        socket,
        200,
        JSON.stringify({
          success: true,
          logEntries: [9, 8, 7].map((id) => ({ id, level: 'Information', message: `m${id}` })),
          totalLogEntriesCount: 1_000_000,
        }),
      ),
    );
    const r = await runCli(['log', 'list', '--all', '-o', 'csv', '--fields', 'id'], { env: env(fake) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('id\n9\n8\n7\n');
    expect(fake.requests.length).toBe(2);
    expect(r.stderr).toContain('the service ignored the paging filter (id < 7): page 2 repeated ids up to 7');
  });

  it('by skip (--sort name): a page identical to the one before stops the command', async () => {
    fake = await stubborn([1, 2]);
    const r = await runCli(['resources', 'list', '--all', '--sort', 'name', '--take', '2', '-o', 'ndjson'], { env: env(fake) });
    expect(r.code).toBe(1);
    expect(ndjson(r.stdout).map((x) => x.id)).toEqual([1, 2]);
    expect(fake.requests.length).toBe(2);
    expect(r.stderr).toContain('the service ignored the paging skip: page 2 (skip 2) repeated the resources of page 1');
  });

  it('a page not sorted by the key as asked stops before it is printed', async () => {
    fake = await startFake((socket, req) => {
      const ids = req.n === 0 ? [1, 2] : [5, 4];
      reply(socket, 200, JSON.stringify({ success: true, resources: ids.map(resource), totalResourcesCount: 4 }));
    });
    const r = await runCli(['resources', 'list', '--all', '--take', '2', '-o', 'ndjson'], { env: env(fake) });
    expect(r.code).toBe(1);
    expect(ndjson(r.stdout).map((x) => x.id)).toEqual([1, 2]);
    expect(r.stderr).toContain('the service did not sort page 2 by id asc as asked (id 4 after 5)');
  });
});

describe('--all against a service that ends short of its total', () => {
  it('prints what it got, exit 0, and says "got 4 of 10" on stderr (even with --quiet)', async () => {
    fake = await startFake((socket, req) => {
      const ids = req.n === 0 ? [1, 2, 3, 4] : [];
      reply(socket, 200, JSON.stringify({ success: true, resources: ids.map(resource), totalResourcesCount: 10 }));
    });
    const r = await runCli(['resources', 'list', '--all', '-o', 'ndjson', '--quiet'], { env: env(fake) });
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout).map((x) => x.id)).toEqual([1, 2, 3, 4]);
    expect(fake.requests.length).toBe(2);
    expect(r.stderr).toMatch(/^got 4 of 10: the service ended the list before the total it announced/m);
  });

  it('large totals are written with separators; a complete run says nothing', async () => {
    fake = await startFake((socket, req) => {
      const ids = req.n === 0 ? [1, 2, 3, 4] : [];
      reply(
        socket,
        200,
        JSON.stringify({ success: true, resources: ids.map(resource), totalResourcesCount: req.n === 0 ? 49_518_088 : 0 }),
      );
    });
    const r = await runCli(['resources', 'list', '--all', '-o', 'ndjson'], { env: env(fake) });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('got 4 of 49,518,088: ');
    await fake.close();
    fake = await startFake((socket, req) => {
      const ids = req.n === 0 ? [1, 2, 3, 4] : [];
      reply(socket, 200, JSON.stringify({ success: true, resources: ids.map(resource), totalResourcesCount: 4 }));
    });
    const ok = await runCli(['resources', 'list', '--all', '-o', 'ndjson'], { env: env(fake) });
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe('');
  });
});

describe('--all by skip over records that look alike under --fields', () => {
  it('pages of equal-looking records are not taken for a repeat: the key is selected and stripped', async () => {
    // 4 resources named alike, 2 per page: by --fields name alone, page 2 looks like page 1
    fake = await startFake((socket, req) => {
      const q = new URL(req.path, 'http://x').searchParams;
      const skip = Number(q.get('skip') ?? 0);
      const withId = (q.get('select') ?? 'id').split(', ').includes('id');
      const recs = [1, 2, 3, 4].slice(skip, skip + 2).map((id) => (withId ? { id, name: 'same' } : { name: 'same' }));
      reply(socket, 200, JSON.stringify({ success: true, resources: recs, totalResourcesCount: 4 }));
    });
    const r = await runCli(['resources', 'list', '--all', '--sort', 'name', '--take', '2', '--fields', 'name', '-o', 'csv'], {
      env: env(fake),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('name\nsame\nsame\nsame\nsame\n');
    expect(new URL(fake.requests[0]!.path, 'http://x').searchParams.get('select')).toBe('name, id');
  });
});
