/**
 * Letting go of large data as soon as it is done with. V8 collects a large string or
 * buffer (a resource's data: up to 7 MiB, 9.4 MiB as base64) only when its heap or its
 * external memory grows past limits sized for the whole process, so a command that goes
 * through hundreds of such records one at a time would still reach ~230 MB of resident
 * memory while holding one (measured: `resources import` of a 1.4 GB bundle; bench/import.md).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Records smaller than this (bytes) leave collection to V8. */
const LARGE = 1024 * 1024;

let fullGc: (() => void) | undefined;

/**
 * After a record of `bytes` bytes is done with (its request sent, its line parsed): runs
 * V8's full garbage collection when the record was large (≥ 1 MiB), so the memory it held is
 * free before the next one is read; nothing for smaller ones. V8's `gc` is reached the way
 * jest-leak-detector reaches it (`--expose-gc` set at run time, `gc` taken from a new
 * context), since lic's executable is not started with flags. About 10 ms a call on lic's
 * heap; the caller's request for the record takes longer.
 */
export function collectAfterLargeRecord(bytes: number): void {
  if (bytes < LARGE) return;
  if (!fullGc) {
    setFlagsFromString('--expose-gc');
    fullGc = runInNewContext('gc') as () => void;
  }
  fullGc();
}
