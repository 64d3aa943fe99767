/** readFileBounded: the whole file below its limit, limit + 1 bytes above it, stat's size only a hint. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileBounded } from '../src/bounded-read.js';

const dir = mkdtempSync(join(tmpdir(), 'lic-bounded-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MiB = 1024 * 1024;

describe('readFileBounded', () => {
  it('a file of MiBs under the limit: all of its bytes', async () => {
    const bytes = randomBytes(5 * MiB + 7);
    writeFileSync(join(dir, 'five'), bytes);
    expect((await readFileBounded(join(dir, 'five'), 7 * MiB)).equals(bytes)).toBe(true);
  });

  it('a file over the limit: limit + 1 bytes, the caller’s sign of "too large"', async () => {
    writeFileSync(join(dir, 'big'), randomBytes(3 * MiB));
    expect((await readFileBounded(join(dir, 'big'), 2 * MiB)).length).toBe(2 * MiB + 1);
  });

  it('small files and empty ones, read in chunks', async () => {
    writeFileSync(join(dir, 'small'), 'hello');
    writeFileSync(join(dir, 'empty'), '');
    expect((await readFileBounded(join(dir, 'small'), MiB)).toString()).toBe('hello');
    expect((await readFileBounded(join(dir, 'empty'), MiB)).length).toBe(0);
  });

  it('a device whose size stat gives as 0: read up to limit + 1, not to its size', async () => {
    expect((await readFileBounded('/dev/zero', 3 * MiB)).length).toBe(3 * MiB + 1);
  });
});
