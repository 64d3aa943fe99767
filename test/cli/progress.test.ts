/** The progress bar's own ETA and elapsed-time formatting (no cli-progress eta_formatted). */
import { describe, expect, it } from 'vitest';
import { etaSeconds, formatElapsed, formatEta } from '../../src/cli/progress.js';

describe('formatEta', () => {
  it('seconds, minutes with two-digit seconds, hours with two-digit minutes', () => {
    expect(formatEta(0)).toBe('0s');
    expect(formatEta(45)).toBe('45s');
    expect(formatEta(65)).toBe('1m05s');
    expect(formatEta(14 * 3600)).toBe('14h00m');
    expect(formatEta(3600 + 61)).toBe('1h01m');
  });

  it('rounds before splitting: never 60 in a part', () => {
    expect(formatEta(59.6)).toBe('1m00s');
    expect(formatEta(119.7)).toBe('2m00s');
    expect(formatEta(3599.6)).toBe('1h00m');
    expect(formatEta(14 * 3600 + 59 * 60 + 59.9)).toBe('15h00m');
    for (let s = 0; s < 200_000; s += 37.7) expect(formatEta(s)).not.toMatch(/(^|[^\d])60[ms]/);
  });

  it('nothing for NaN, Infinity or negative; a cap for absurd totals', () => {
    expect(formatEta(NaN)).toBeUndefined();
    expect(formatEta(Infinity)).toBeUndefined();
    expect(formatEta(-1)).toBeUndefined();
    expect(formatEta(1e12)).toBe('>99d');
  });
});

describe('etaSeconds', () => {
  it('hidden until there is a total, some records and a second of data', () => {
    expect(etaSeconds(100, undefined, 5000)).toBeUndefined();
    expect(etaSeconds(0, 1000, 5000)).toBeUndefined();
    expect(etaSeconds(100, 1000, 999)).toBeUndefined();
    expect(etaSeconds(100, 1000, 1000)).toBeCloseTo(9);
    expect(etaSeconds(1200, 1000, 2000)).toBe(0);
  });
});

describe('formatElapsed', () => {
  it('tenths of a second, then minutes', () => {
    expect(formatElapsed(1234)).toBe('1.2 s');
    expect(formatElapsed(40)).toBe('0.0 s');
    expect(formatElapsed(59_960)).toBe('1m00s');
    expect(formatElapsed(65_000)).toBe('1m05s');
    expect(formatElapsed(NaN)).toBe('0.0 s');
  });
});
