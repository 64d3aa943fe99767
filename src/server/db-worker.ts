/**
 * A worker thread with a connection of its own to the service's database file (WAL lets it
 * work beside the service's connection): the log purge's table drops (./log/purge.ts) and the
 * background page check (./page-check.ts). The worker's source is run by eval, as CommonJS or,
 * when the process was started with --input-type=module (which the worker inherits), as an ES
 * module: so it gets no bare `require`, and this prelude loads what it needs through
 * process.getBuiltinModule: `parentPort`, `workerData` and `Database` (better-sqlite3, found
 * from this file as the service finds it).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const PRELUDE = `
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const Database = process.getBuiltinModule('node:module').createRequire(workerData.driver)(workerData.driver);
`;

/**
 * Starts `source` (the worker's body, after the prelude above) in a worker thread with
 * `workerData` (plus `driver`, the path of better-sqlite3). Throws what Worker throws when no
 * thread can be started.
 */
export function startDbWorker(source: string, workerData: Record<string, unknown>): Worker {
  return new Worker(PRELUDE + source, {
    eval: true,
    workerData: { ...workerData, driver: createRequire(import.meta.url).resolve('better-sqlite3') },
  });
}
