/**
 * Figures of the reliability suite: each tier records what it counted and measured;
 * scripts/reliability-report.mjs turns them into bench/reliability.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

/** bench/reliability/, or LIC_RELIABILITY_FIGURES_DIR (the CI matrix's runs on other Node lines keep theirs apart). */
const DIR = process.env.LIC_RELIABILITY_FIGURES_DIR
  ? `${process.env.LIC_RELIABILITY_FIGURES_DIR.replace(/\/$/, '')}/`
  : fileURLToPath(new URL('../../bench/reliability/', import.meta.url));

/** Writes `figures` of tier `name` (DIR/<name>.json), replacing the last run's, with when, on which Node and under what load (1, 5, 15 min). */
export function recordFigures(name: string, title: string, figures: Record<string, string | number>): void {
  mkdirSync(DIR, { recursive: true });
  writeFileSync(
    `${DIR}${name}.json`,
    `${JSON.stringify({ title, at: new Date().toISOString(), node: process.version, loadavg: loadavg().map((l) => Number(l.toFixed(2))), figures }, null, 2)}\n`,
  );
}

/** A histogram of values: `{ "200": 12, "404": 3 }`, keys sorted. */
export function histogram(values: Iterable<number | string>): Record<string, number> {
  const h: Record<string, number> = {};
  for (const v of values) h[String(v)] = (h[String(v)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(h).sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })));
}
