/**
 * Crash: a real `lic serve` on a database file takes a stream of writes and
 * is killed with SIGKILL at a random moment, ten times over the same file. After each
 * kill: `PRAGMA integrity_check` is ok, and every write acknowledged with 200 is there,
 * with its audit entry.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { BIN } from '../helpers/spawn.js';
import { recordFigures } from './figures.js';

const ROUNDS = 10;
const WRITERS = 4;

/** Starts `lic serve` on `db`; resolves with the child and the URL it printed. */
function serve(db: string, dir: string, keysFile?: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const args = [BIN, 'serve', '--db', db, '--port', '0', '--no-profile', ...(keysFile ? ['--keys-file', keysFile] : [])];
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH ?? '', HOME: dir, LIC_CONFIG_DIR: dir, LIC_DATA_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /^(http:\/\/\S+)$/m.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.stderr!.on('data', (d) => (err += d));
    child.on('exit', (code) => reject(new Error(`lic serve exited ${code} before listening: ${err}`)));
  });
}

describe('crash', () => {
  it(`SIGKILL during a stream of writes, ${ROUNDS} times: integrity ok, every acknowledged write present`, async () => {
    const dir = tempDir();
    const db = join(dir, 'crash.db');
    const keysFile = join(dir, 'keys.json');
    let key = '';
    let ackedTotal = 0;
    let inFlightLost = 0;
    const acked: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const { child, url } = await serve(db, dir, round === 0 ? keysFile : undefined);
      if (round === 0) key = (JSON.parse(readFileSync(keysFile, 'utf8')) as { keys: { key: string }[] }).keys[0]!.key;
      const pool = new Pool(url, { connections: WRITERS });
      let stop = false;
      const writer = async (w: number) => {
        for (let i = 0; !stop; i++) {
          const name = `crash-${round}-${w}-${i}`;
          try {
            const r = await pool.request({
              method: 'POST',
              path: '/v1/resources',
              headers: { 'x-api-key': key, 'content-type': 'application/json' },
              body: JSON.stringify({ resource: { name, type: 'note', description: 'x'.repeat(200) } }),
            });
            await r.body.text();
            if (r.statusCode === 200) acked.push(name);
          } catch {
            inFlightLost++;
            return; // the service is gone
          }
        }
      };
      const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
      // kill at a random moment once this round has had writes acknowledged (at least 10, or
      // after 20 s): on a loaded machine a fixed window could pass before the first reply
      const before = acked.length;
      for (const t0 = Date.now(); acked.length - before < 10 && Date.now() - t0 < 20_000;) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 300)));
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      stop = true;
      await Promise.all(writers);
      await pool.destroy();
      const check = new Database(db);
      try {
        expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
        const names = new Set(check.prepare("SELECT name FROM resources WHERE name LIKE 'crash-%'").pluck().all() as string[]);
        const missing = acked.filter((n) => !names.has(n));
        expect(missing).toEqual([]);
        const audited = check
          .prepare("SELECT count(*) FROM log WHERE message LIKE 'POST /v1/resources by API key%'")
          .pluck()
          .get() as number;
        expect(audited).toBeGreaterThanOrEqual(acked.length);
        expect(audited).toBe(names.size);
      } finally {
        check.close();
      }
      ackedTotal = acked.length;
    }
    expect(ackedTotal).toBeGreaterThan(ROUNDS * 10);
    recordFigures('crash', `Crash: SIGKILL during writes, ${ROUNDS} rounds on one database file`, {
      rounds: ROUNDS,
      'writes acknowledged': ackedTotal,
      'acknowledged writes missing after restart': 0,
      'integrity_check failures': 0,
      'requests cut off by the kill (not acknowledged)': inFlightLost,
    });
  });
});
