/**
 * The seeded random generator of the demo dataset: one independent stream per (seed,
 * section), so the same seed gives the same dataset and one section's draws never shift
 * another's. Good enough for demo data, never for secrets.
 */

/** mulberry32: a small, fast 32-bit PRNG; good enough for demo data, not for secrets. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded stream of random draws (mulberry32, seeded by FNV-1a of the section name and the seed). */
export class Rng {
  private readonly next: () => number;
  /** One independent stream per (seed, section), so sections don't shift each other. */
  constructor(seed: number, section: string) {
    let h = 2166136261 ^ (seed >>> 0);
    for (const ch of section) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
    this.next = mulberry32(h ^ Math.imul(seed | 0, 0x9e3779b1));
  }
  /** A float in [0, 1). */
  float(): number {
    return this.next();
  }
  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  /** True with probability `p` (0..1). */
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** One of `items`, each equally likely; throws on an empty list. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }
  /** One value of `[value, weight]` pairs, with probability proportional to its weight. */
  weighted<T>(pairs: readonly (readonly [T, number])[]): T {
    const total = pairs.reduce((s, [, w]) => s + w, 0);
    let r = this.next() * total;
    for (const [v, w] of pairs) {
      r -= w;
      if (r < 0) return v;
    }
    return pairs[pairs.length - 1]![0];
  }
  /** `n` distinct items in random order. */
  sample<T>(items: readonly T[], n: number): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, n);
  }
  /** `n` characters drawn from `alphabet`. */
  chars(n: number, alphabet: string): string {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(this.next() * alphabet.length)];
    return s;
  }
}

/** Alphabets for `Rng.chars`: codes and machine names, hex digests. */
export const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export const HEX = '0123456789ABCDEF';
export const DIGITS = '0123456789';
