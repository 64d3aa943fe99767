/**
 * Letting go of large data as soon as it is done with. V8 collects a large string or
 * buffer (a resource's data: up to 7 MiB, 9.4 MiB as base64) only when its heap or its
 * external memory grows past limits sized for the whole process, so a command that goes
 * through hundreds of such records one at a time would still reach ~230 MB of resident
 * memory while holding one (measured: `resources import` of a 1.4 GB bundle; bench/import.md).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How much record data (bytes) may be let go before a collection: 4 MiB. */
const BATCH = 4 * 1024 * 1024;

let gcFn: ((o?: { type: 'major' | 'minor' }) => void) | undefined;
let pending = 0;
let pendingYoung = 0;

/** V8's `gc`, reached the way jest-leak-detector reaches it (`--expose-gc` set at run time, `gc` taken from a new context). */
function gc(): (o?: { type: 'major' | 'minor' }) => void {
  if (!gcFn) {
    setFlagsFromString('--expose-gc');
    gcFn = runInNewContext('gc') as (o?: { type: 'major' | 'minor' }) => void;
  }
  return gcFn;
}

/**
 * After a record's data of `bytes` bytes is done with (its line parsed, its request sent):
 * counts it, and once 4 MiB or more were let go since the last collection runs V8's full
 * garbage collection, so the memory they held is free before the next record is read (every
 * record of 4 MiB or more; one in about ten of 400 KiB). V8's `gc` is reached the way
 * jest-leak-detector reaches it (`--expose-gc` set at run time, `gc` taken from a new
 * context), since lic's executable is not started with flags. A call costs less than the
 * request for a record.
 */
export function collectAfterRecordData(bytes: number): void {
  pending += bytes;
  if (pending < BATCH) return;
  pending = 0;
  gc()();
}

/** How many bytes of replies may be let go before a young-generation collection: 1 MiB (about three pages of the log). */
const YOUNG_BATCH = 1024 * 1024;

/**
 * After a reply of `bytes` bytes is done with (a list page written): counts it, and once
 * 1 MiB or more was let go runs V8's young-generation collection (a scavenge, well under
 * 1 ms: little of the young generation is alive between pages). A
 * reply's bytes live outside V8's heap, in buffers that only a collection of the objects
 * holding them frees, and a stream that passes its pages through as text
 * (src/cli/list/page-text.ts) allocates so little on V8's heap that collections come
 * rarely: without this, the socket's buffers of some hundred pages piled up (+40 MiB
 * peak RSS over a 1M-entry walk, measured). Every 4 MiB the same walk peaked at 127–139 MiB
 * on Node 26, every 1 MiB at 108–116 MiB, in the same time (bench/startup.md).
 */
export function collectAfterReply(bytes: number): void {
  pendingYoung += bytes;
  if (pendingYoung < YOUNG_BATCH) return;
  pendingYoung = 0;
  gc()({ type: 'minor' });
}

/**
 * After a burst of short-lived objects that is over (a batch of a state file parsed: a tree
 * of hundreds of times its text's size, garbage once its records are checked): V8's
 * young-generation collection (a scavenge, well under a millisecond when little survives).
 * Collected at each burst's end, the young generation never fills in the middle of one, so
 * a scavenge never finds a burst's objects alive and moves them to the old generation, where
 * only a full collection would free them (measured on a 60 MB state file read 64 KiB at a
 * time: ~120 MB of such garbage between two full collections without it).
 */
export function collectAfterBurst(): void {
  gc()({ type: 'minor' });
}
