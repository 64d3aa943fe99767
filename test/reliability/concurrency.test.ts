/**
 * Concurrency: 8 parallel clients × 1,000 writes each (insert, update, delete
 * mixed) on their own keep-alive connections. Afterwards: nothing lost, ids unique, the
 * list's total exact, and one audit entry per acknowledged write.
 */
import { Pool } from 'undici';
import { describe, expect, it } from 'vitest';

import { recordFigures } from './figures.js';
import { useService } from '../helpers/fixtures.js';

const CLIENTS = 8;
const WRITES = 1000;

const { svc } = useService();

/** A deterministic PRNG (mulberry32), so a failing run can be replayed. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('concurrency', () => {
  it(`${CLIENTS} clients × ${WRITES} mixed writes: zero lost, ids unique, totals exact`, async () => {
    const logBefore = svc.db.prepare("SELECT count(*) FROM log WHERE level = 'Information'").pluck().get() as number;
    const inserted: number[] = [];
    const failures: string[] = [];
    let acked = 0;
    const t0 = performance.now();
    const client = async (c: number) => {
      const pool = new Pool(svc.url, { connections: 1 });
      const live = new Map<number, string>();
      const rand = rng(c + 1);
      let seq = 0;
      const call = async (method: string, body?: unknown, path = '/v1/resources') => {
        const r = await pool.request({
          method: method as 'GET',
          path,
          headers: { 'x-api-key': svc.adminKey, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const json = (await r.body.json()) as Record<string, unknown>;
        if (r.statusCode !== 200) failures.push(`client ${c} ${method}: ${r.statusCode} ${JSON.stringify(json)}`);
        else acked++;
        return json;
      };
      try {
        for (let i = 0; i < WRITES; i++) {
          const p = rand();
          const ids = [...live.keys()];
          if (ids.length === 0 || p < 0.5) {
            const name = `cc-${c}-${++seq}`;
            const r = await call('POST', { resource: { name, type: 'note' } });
            const id = r.resourceId as number;
            inserted.push(id);
            live.set(id, name);
          } else if (p < 0.8) {
            const id = ids[Math.floor(rand() * ids.length)]!;
            const name = `cc-${c}-${++seq}`;
            await call('PUT', { resource: { id, name } });
            live.set(id, name);
          } else {
            const id = ids[Math.floor(rand() * ids.length)]!;
            await call('DELETE', undefined, `/v1/resources/${id}`);
            live.delete(id);
          }
        }
      } finally {
        await pool.close();
      }
      return live;
    };
    const states = await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
    const seconds = (performance.now() - t0) / 1000;
    expect(failures).toEqual([]);
    expect(new Set(inserted).size).toBe(inserted.length);
    const want = new Map<number, string>();
    for (const s of states) for (const [id, name] of s) want.set(id, name);
    // what the service has, paged by id
    const have = new Map<number, string>();
    let last = 0;
    let total = -1;
    for (;;) {
      const r = await fetch(
        `${svc.url}/v1/resources?take=1000&sort=Id&filter=${encodeURIComponent(`Name.StartsWith("cc-") and Id > ${last}`)}`,
        { headers: { 'x-api-key': svc.adminKey } },
      );
      const body = (await r.json()) as { resources: { id: number; name: string }[]; totalResourcesCount: number };
      if (total < 0) total = body.totalResourcesCount;
      for (const x of body.resources) have.set(x.id, x.name);
      if (body.resources.length < 1000) break;
      last = body.resources[body.resources.length - 1]!.id;
    }
    expect(total).toBe(want.size);
    expect([...have.entries()].sort((a, b) => a[0] - b[0])).toEqual([...want.entries()].sort((a, b) => a[0] - b[0]));
    const audits = (svc.db.prepare("SELECT count(*) FROM log WHERE level = 'Information'").pluck().get() as number) - logBefore;
    expect(audits).toBe(acked);
    recordFigures('concurrency', `Concurrency: ${CLIENTS} clients × ${WRITES} mixed writes`, {
      'writes acknowledged': acked,
      inserts: inserted.length,
      'records left (listed = expected)': have.size,
      'lost or extra records': 0,
      'duplicate ids': inserted.length - new Set(inserted).size,
      'audit entries = acknowledged writes': audits,
      'writes/s': Math.round(acked / seconds),
      'duration (s)': seconds.toFixed(1),
    });
  });
});
