/**
 * The database's lock (src/server/serve-lock.ts) with real processes: a live holder refuses a
 * second service naming its process and URL (read from `<db>.lock.json`), or without them
 * when that file is missing, unreadable, a FIFO or one a killed holder left; a holder killed
 * with SIGKILL leaves its files but no lock, so the next start serves at once; a lock file
 * lic did not make is made one; a second service in the same process is refused without
 * loosening the first one's lock; a clean stop, or a start that fails, removes both files;
 * and processes starting at the same instant, on what a killed holder left, on a large lock
 * file or while the holder stops, never both hold it. `lic serve` itself is in
 * test/commands/serve/serve.spawned.test.ts.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseInUseError, startService } from '../../src/server/index.js';
import { tempDir } from '../helpers/temp.js';

const SOURCE = fileURLToPath(new URL('../../src/server/serve-lock.ts', import.meta.url));
/** the node_modules that holds better-sqlite3, for the children's require */
const MODULES = dirname(dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')));

/**
 * A child: it takes orders on stdin, one a line, and answers each on stdout. `go DB AT` waits
 * (spinning) until the instant AT (ms since the epoch), so that every child tries at once, then
 * takes the lock: `acquired` or `refused <message>`. `listening URL`, `release` (`released`).
 */
const CHILD = `
const { acquireServeLock } = require(process.argv[1]);
let lock;
const say = (s) => process.stdout.write(s + '\\n');
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const [cmd, a, b] = line.split(' ');
  try {
    if (cmd === 'go') {
      const at = Number(b);
      while (Date.now() < at) {}
      try { lock = acquireServeLock(a); say('acquired'); }
      catch (e) { say(e.name === 'DatabaseInUseError' ? 'refused ' + e.message : 'error ' + e.message); }
    } else if (cmd === 'listening') { lock.listening(a); say('ok'); }
    else if (cmd === 'release') { lock.release(); lock = undefined; say('released'); }
  } catch (e) { say('error ' + e.message); }
});
say('ready');
`;

let bundle = '';
const children: Child[] = [];

/** A child process of CHILD's, with its answers in order. */
class Child {
  readonly p: ChildProcessWithoutNullStreams;
  private lines: string[] = [];
  private waiting: { resolve: (line: string) => void; reject: (e: Error) => void }[] = [];
  readonly exited: Promise<void>;

  constructor() {
    this.p = spawn(process.execPath, ['-e', CHILD, bundle], { env: { ...process.env, NODE_PATH: MODULES } });
    children.push(this);
    let buf = '';
    this.p.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const w = this.waiting.shift();
        if (w) w.resolve(line);
        else this.lines.push(line);
      }
    });
    this.p.stderr.on('data', (d: Buffer) => process.stderr.write(d));
    this.exited = new Promise((resolve) =>
      this.p.once('exit', (code, signal) => {
        for (const w of this.waiting.splice(0)) w.reject(new Error(`the child exited (${code ?? signal}) without answering`));
        resolve();
      }),
    );
  }

  get pid(): number {
    return this.p.pid!;
  }

  /** The next answer. */
  next(): Promise<string> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.p.exitCode !== null || this.p.signalCode !== null) return Promise.reject(new Error('the child has exited'));
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  async ask(order: string): Promise<string> {
    this.p.stdin.write(`${order}\n`);
    return this.next();
  }

  async kill(): Promise<void> {
    this.p.kill('SIGKILL');
    await this.exited;
  }
}

/** A child ready for orders. */
async function child(): Promise<Child> {
  const c = new Child();
  expect(await c.next()).toBe('ready');
  return c;
}

/** A child holding the lock of `db`, its URL recorded when given. */
async function holder(db: string, url?: string): Promise<Child> {
  const c = await child();
  expect(await c.ask(`go ${db} 0`)).toBe('acquired');
  if (url) expect(await c.ask(`listening ${url}`)).toBe('ok');
  return c;
}

const inUse = (db: string, pid: number, url: string) =>
  `the database ${db} is already served by lic serve process ${pid} at ${url}: use that one, stop it first, or choose another --db`;

beforeAll(() => {
  // the module alone, as CommonJS, for the children (better-sqlite3 from MODULES)
  bundle = join(tempDir(), 'serve-lock.cjs');
  buildSync({
    entryPoints: [SOURCE],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    external: ['better-sqlite3'],
    outfile: bundle,
    logLevel: 'error',
  });
});

afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
});

describe('the lock of a served database', () => {
  it('held by another live process: refused naming its process and URL; nothing opened, nothing of the holder touched', async () => {
    const db = join(tempDir(), 'lic.db');
    const h = await holder(db, 'http://127.0.0.1:9');
    const err = await startService({ dbPath: db, port: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseInUseError);
    expect((err as Error).message).toBe(inUse(db, h.pid, 'http://127.0.0.1:9'));
    expect(existsSync(db)).toBe(false);
    expect(JSON.parse(readFileSync(`${db}.lock.json`, 'utf8'))).toMatchObject({ pid: h.pid, url: 'http://127.0.0.1:9' });
    // owner-only, as every file beside the database
    expect(statSync(`${db}.lock`).mode & 0o777).toBe(0o600);
    expect(statSync(`${db}.lock.json`).mode & 0o777).toBe(0o600);
    // still held: another process is refused too
    expect(await (await child()).ask(`go ${db} 0`)).toBe(`refused ${inUse(db, h.pid, 'http://127.0.0.1:9')}`);
    expect(await h.ask('release')).toBe('released');
    expect(readdirSync(dirname(db))).toEqual([]);
  });

  it.each([
    ['missing', undefined],
    ['not what a holder writes', 'not json'],
    ['a FIFO (the refusal must not wait on it)', 'fifo'],
  ])('held, its side file %s: refused without the process and URL', async (_why, content) => {
    const db = join(tempDir(), 'lic.db');
    const h = await holder(db);
    const info = `${db}.lock.json`;
    rmSync(info);
    if (content === 'fifo') expect(spawnSync('mkfifo', [info]).status).toBe(0);
    else if (content !== undefined) writeFileSync(info, content);
    await expect(startService({ dbPath: db, port: 0 })).rejects.toThrow(
      `the database ${db} is already served by another lic serve: use that one, stop it first, or choose another --db`,
    );
    await h.ask('release');
  });

  it('held, its side file one a killed holder left (the new holder not yet past writing its own): refused without naming the dead one', async () => {
    const db = join(tempDir(), 'lic.db');
    const killed = await holder(db, 'http://127.0.0.1:9');
    await killed.kill();
    const left = readFileSync(`${db}.lock.json`, 'utf8');
    const h = await holder(db);
    // the side file as it is in the moment between the new holder taking the lock and writing its own
    writeFileSync(`${db}.lock.json`, left);
    expect(await (await child()).ask(`go ${db} 0`)).toBe(
      `refused the database ${db} is already served by another lic serve: use that one, stop it first, or choose another --db`,
    );
    await h.ask('release');
  });

  it('its holder killed with SIGKILL: the files stay but the lock is gone, so the next start serves at once; a clean stop removes them', async () => {
    const db = join(tempDir(), 'lic.db');
    const h = await holder(db, 'http://127.0.0.1:9');
    await h.kill();
    expect(existsSync(`${db}.lock`)).toBe(true);
    expect(JSON.parse(readFileSync(`${db}.lock.json`, 'utf8')).pid).toBe(h.pid);
    const svc = await startService({ dbPath: db, port: 0 });
    try {
      expect(JSON.parse(readFileSync(`${db}.lock.json`, 'utf8'))).toMatchObject({ pid: process.pid, url: svc.url });
      expect(await (await child()).ask(`go ${db} 0`)).toBe(`refused ${inUse(db, process.pid, svc.url)}`);
    } finally {
      await svc.close();
    }
    expect(existsSync(`${db}.lock`)).toBe(false);
    expect(existsSync(`${db}.lock.json`)).toBe(false);
  });

  it.each([
    ['text (a pid file of an earlier lic)', '{"pid":999999}\n'],
    ['an unrelated side file naming a live process', undefined],
  ])('a lock file of %s, no process holding it: the start serves', async (_why, content) => {
    const db = join(tempDir(), 'lic.db');
    if (content !== undefined) writeFileSync(`${db}.lock`, content);
    else writeFileSync(`${db}.lock.json`, JSON.stringify({ pid: process.ppid, url: 'http://127.0.0.1:9' }));
    const svc = await startService({ dbPath: db, port: 0 });
    try {
      expect(JSON.parse(readFileSync(`${db}.lock.json`, 'utf8'))).toMatchObject({ pid: process.pid, url: svc.url });
    } finally {
      await svc.close();
    }
    expect(existsSync(`${db}.lock`)).toBe(false);
  });

  it('a second service in the same process is refused and leaves the first its lock; once the first closes, a new one starts', async () => {
    const db = join(tempDir(), 'lic.db');
    const first = await startService({ dbPath: db, port: 0 });
    try {
      await expect(startService({ dbPath: db, port: 0 })).rejects.toThrow(inUse(db, process.pid, first.url));
      // the refused start removed nothing of the running service's, nor loosened its lock
      expect(existsSync(db)).toBe(true);
      expect(existsSync(`${db}.key`)).toBe(true);
      expect(await (await child()).ask(`go ${db} 0`)).toBe(`refused ${inUse(db, process.pid, first.url)}`);
    } finally {
      await first.close();
    }
    const again = await startService({ dbPath: db, port: 0 });
    await again.close();
  });

  it('a start that fails after taking the lock (a port in use) lets it go and removes its files', async () => {
    const db = join(tempDir(), 'lic.db');
    const busy = await startService({ dbPath: ':memory:', port: 0 });
    try {
      const port = Number(new URL(busy.url).port);
      await expect(startService({ dbPath: db, port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      expect(readdirSync(dirname(db))).toEqual([]);
      const h = await holder(db);
      await h.ask('release');
    } finally {
      await busy.close();
    }
  });
});

describe('processes starting at the same instant', () => {
  const RACERS = 3;
  const ROUNDS = 20;

  /** Each child tries `db` at one instant (a little ahead, so that every order has arrived); their answers. */
  async function race(racers: Child[], db: string, also?: () => Promise<unknown>): Promise<string[]> {
    const at = Date.now() + 40;
    for (const r of racers) r.p.stdin.write(`go ${db} ${at}\n`);
    const [answers] = await Promise.all([Promise.all(racers.map((r) => r.next())), also?.()]);
    return answers;
  }

  /** ROUNDS rounds, each on a new database beside which `leave(dir)` put what a stopped holder left: how many held the lock in each. */
  async function rounds(leave: (dir: string) => void): Promise<number[]> {
    const racers = await Promise.all(Array.from({ length: RACERS }, () => child()));
    const dir = tempDir();
    const held: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const db = join(dir, `r${round}`, 'lic.db');
      mkdirSync(dirname(db));
      leave(dirname(db));
      const answers = await race(racers, db);
      for (const a of answers) expect(a).toMatch(/^acquired$|^refused the database .* is already served by /);
      const won = answers.flatMap((a, i) => (a === 'acquired' ? [i] : []));
      held.push(won.length);
      for (const i of won) await racers[i]!.ask('release');
      rmSync(dirname(db), { recursive: true });
    }
    return held;
  }

  it(`on the lock files of a holder killed with SIGKILL: exactly one holds it, ${ROUNDS} rounds of ${RACERS}`, async () => {
    const left = join(tempDir(), 'lic.db');
    const killed = await holder(left, 'http://127.0.0.1:9');
    await killed.kill();
    const files = readdirSync(dirname(left));
    expect(files).toContain('lic.db.lock');
    const held = await rounds((dir) => {
      for (const f of files) copyFileSync(join(dirname(left), f), join(dir, f));
    });
    expect(held).toEqual(Array(ROUNDS).fill(1));
  });

  // A lock file that takes milliseconds to read stretches each start's steps, so the
  // interleavings a busy machine makes now and then (one start deciding on what it read while
  // another has already acted) come in most rounds.
  it(`on a lock file of 10 MB of something else: exactly one holds it, ${ROUNDS} rounds of ${RACERS}`, async () => {
    const big = `{"pid":999999}${' '.repeat(10_000_000)}\n`;
    const held = await rounds((dir) => writeFileSync(join(dir, 'lic.db.lock'), big));
    expect(held).toEqual(Array(ROUNDS).fill(1));
  });

  it(`while its holder stops: never two hold it, and once it is free a start takes it, ${ROUNDS} rounds`, async () => {
    const dir = tempDir();
    const racers = await Promise.all(Array.from({ length: RACERS }, () => child()));
    const stopping = await child();
    const holding: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const db = join(dir, `r${round}`, 'lic.db');
      mkdirSync(dirname(db));
      expect(await stopping.ask(`go ${db} 0`)).toBe('acquired');
      // the holder releases (removing the lock file) as the others try
      const answers = await race(racers, db, () => stopping.ask('release'));
      const won = answers.flatMap((a, i) => (a === 'acquired' ? [i] : []));
      holding.push(won.length);
      if (won.length === 0) expect(await stopping.ask(`go ${db} 0`)).toBe('acquired');
      else expect((await stopping.ask(`go ${db} 0`)).startsWith('refused ')).toBe(true);
      await stopping.ask('release');
      for (const i of won) await racers[i]!.ask('release');
    }
    expect(holding.filter((n) => n > 1)).toEqual([]);
  });
});
