import { describe, expect, it } from 'vitest';
import { isoOrNull } from '../../src/server/db.js';

describe('isoOrNull (contract §2: RFC 3339 UTC with Z)', () => {
  it('is null for a value never set', () => {
    expect(isoOrNull(null)).toBeNull();
    expect(isoOrNull(undefined)).toBeNull();
  });

  it('formats exactly as Date#toISOString, across day, year and sign boundaries and in any order', () => {
    const edges = [
      0, 1, -1, 999, 86_399_999, 86_400_000, -86_400_000, -86_400_001, 1_737_208_442_659, 253_402_300_799_999, 253_402_300_800_000,
    ];
    const seeded: number[] = [];
    let seed = 42;
    for (let i = 0; i < 20_000; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      // alternate near (same day as the last) and far jumps, so the cached day is both reused and replaced
      seeded.push(i % 2 ? 1_737_208_442_659 + (seed % 90_000_000) : (seed - 0x40000000) * 4_000_000);
    }
    for (const ms of [...edges, ...seeded]) expect(isoOrNull(ms)).toBe(new Date(ms).toISOString());
  });
});
