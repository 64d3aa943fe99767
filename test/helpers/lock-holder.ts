/**
 * Another process holding the write lock of a service's SQLite file, as the sqlite3 shell
 * in the middle of `BEGIN IMMEDIATE; …` or a backup tool does: a real second process with
 * its own connection, so the service meets SQLITE_BUSY exactly as it would in the field.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

/** The holder: it writes a row inside `BEGIN IMMEDIATE`, says "locked", and commits when told (a line on stdin). */
const SCRIPT = `
const Database = require(process.argv[1]);
const db = new Database(process.argv[2]);
db.exec('BEGIN IMMEDIATE');
db.prepare("INSERT INTO log (time_stamp, level, message, message_template, exception, properties) VALUES (0, 'Debug', 'held', 'held', '', '{}')").run();
process.stdout.write('locked\\n');
process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });
`;

export interface LockHolder {
  /** commits the holder's transaction and waits for it to exit */
  release(): Promise<void>;
}

/** Starts a process that holds the write lock of the SQLite database at `dbPath`; resolves once it holds it. */
export async function holdWriteLock(dbPath: string): Promise<LockHolder> {
  const child = spawn(process.execPath, ['-e', SCRIPT, DRIVER, dbPath], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code}) before taking the lock`)));
  });
  return {
    async release() {
      child.stdin.write('go\n');
      await exited;
    },
  };
}
