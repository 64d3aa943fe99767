/**
 * A locked database: 8 clients write and 2 read without pause while, in the middle of the
 * run, a second process holds the service's SQLite write lock for 5 s (as the sqlite3 shell
 * inside a transaction would). Writes met by the lock wait a bounded time and get an
 * enveloped 503 with Retry-After, having changed nothing; reads go on meanwhile; after the
 * release every acknowledged write is there with its audit entry, no refused one is, and
 * the spell left one Warning entry and two lines for the operator.
 */
import { join } from 'node:path';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUSY_WAIT_MS } from '../../src/server/busy.js';
import { startService, type RunningService } from '../../src/server/index.js';
import { holdWriteLock } from '../helpers/lock-holder.js';
import { tempDir } from '../helpers/temp.js';
import { recordFigures } from './figures.js';

const WRITERS = 8;
const READERS = 2;
const BEFORE_MS = 2000;
const LOCKED_MS = 5000;
const AFTER_MS = 3000;

let svc: RunningService;
let key = '';
const warnings: string[] = [];
const dbPath = join(tempDir('lic-busy-tier-'), 'lic.db');
beforeAll(async () => {
  svc = await startService({
    dbPath,
    port: 0,
    authFailLimit: { limit: 0, windowMs: 60_000 },
    secretKey: Buffer.alloc(32, 2).toString('base64'),
    warn: (line) => warnings.push(line),
  });
  key = svc.issuedKeys[0]!.key;
});
afterAll(() => svc.close());

type Phase = 'before' | 'locked' | 'after';
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};

describe('locked database', () => {
  it(`${WRITERS} writers and ${READERS} readers; another process holds the write lock for ${LOCKED_MS / 1000} s midway`, async () => {
    let phase: Phase = 'before';
    let stop = false;
    const acked: string[] = [];
    const refused: { name: string; ms: number }[] = [];
    const other: string[] = [];
    const reads: Record<Phase, number[]> = { before: [], locked: [], after: [] };
    const logBefore = svc.db.prepare("SELECT count(*) FROM log WHERE level = 'Information'").pluck().get() as number;

    const writer = async (w: number) => {
      const pool = new Pool(svc.url, { connections: 1 });
      try {
        for (let i = 0; !stop; i++) {
          const name = `busy-${w}-${i}`;
          const t = performance.now();
          const r = await pool.request({
            method: 'POST',
            path: '/v1/resources',
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body: JSON.stringify({ resource: { name } }),
          });
          const body = (await r.body.json()) as { success?: boolean; code?: number; message?: string };
          if (r.statusCode === 200) acked.push(name);
          else if (r.statusCode === 503 && body.success === false && body.code === 14 && r.headers['retry-after'] === '2')
            refused.push({ name, ms: performance.now() - t });
          else other.push(`${name}: ${r.statusCode} ${JSON.stringify(body)}`);
        }
      } finally {
        await pool.close();
      }
    };
    const reader = async () => {
      const pool = new Pool(svc.url, { connections: 1 });
      try {
        while (!stop) {
          const at = phase;
          const t = performance.now();
          const r = await pool.request({ method: 'GET', path: '/v1/resources?take=10', headers: { 'x-api-key': key } });
          await r.body.dump();
          if (r.statusCode !== 200) other.push(`read: ${r.statusCode}`);
          // a read counts for a phase only when it began and ended in it
          if (phase === at) reads[at].push(performance.now() - t);
        }
      } finally {
        await pool.close();
      }
    };
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const clients = [...Array.from({ length: WRITERS }, (_, w) => writer(w)), ...Array.from({ length: READERS }, () => reader())];
    await sleep(BEFORE_MS);
    const lock = await holdWriteLock(dbPath);
    phase = 'locked';
    await sleep(LOCKED_MS);
    phase = 'after';
    await lock.release();
    await sleep(AFTER_MS);
    stop = true;
    await Promise.all(clients);

    expect(other).toEqual([]);
    expect(refused.length).toBeGreaterThan(0);
    // every acknowledged write is there, no refused one is
    const names = new Set(svc.db.prepare("SELECT name FROM resources WHERE name LIKE 'busy-%'").pluck().all() as string[]);
    expect(acked.filter((n) => !names.has(n))).toEqual([]);
    expect(refused.filter((r) => names.has(r.name))).toEqual([]);
    expect(names.size).toBe(acked.length);
    // one audit entry per acknowledged write; one Warning for the spell; one line as it began, one as it ended
    const audits = (svc.db.prepare("SELECT count(*) FROM log WHERE level = 'Information'").pluck().get() as number) - logBefore;
    expect(audits).toBe(acked.length);
    const spell = svc.db
      .prepare("SELECT properties FROM log WHERE level = 'Warning' AND message LIKE 'The database was locked%'")
      .pluck()
      .all() as string[];
    expect(spell).toHaveLength(1);
    expect(JSON.parse(spell[0]!).Refused).toBe(refused.length);
    expect(warnings).toHaveLength(2);
    const waits = refused.map((r) => r.ms);
    recordFigures(
      'busy',
      `Locked database: ${WRITERS} writers, ${READERS} readers, the write lock held by another process for ${LOCKED_MS / 1000} s`,
      {
        'writes acknowledged': acked.length,
        'writes refused (503, code 14, Retry-After)': refused.length,
        'other failures': other.length,
        'acknowledged writes missing, or refused writes stored': 0,
        'audit entries = acknowledged writes': audits,
        'Warning entries for the spell / operator lines': `${spell.length} / ${warnings.length}`,
        [`time to the 503, median / max (ms; the wait is ${BUSY_WAIT_MS})`]: `${percentile(waits, 50).toFixed(0)} / ${Math.max(...waits).toFixed(0)}`,
        'reads before the lock: count, median / p99 (ms)': `${reads.before.length}, ${percentile(reads.before, 50).toFixed(1)} / ${percentile(reads.before, 99).toFixed(1)}`,
        'reads during the lock: count, median / p99 (ms)': `${reads.locked.length}, ${percentile(reads.locked, 50).toFixed(1)} / ${percentile(reads.locked, 99).toFixed(1)}`,
        'reads after the lock: count, median / p99 (ms)': `${reads.after.length}, ${percentile(reads.after, 50).toFixed(1)} / ${percentile(reads.after, 99).toFixed(1)}`,
      },
    );
  });
});
