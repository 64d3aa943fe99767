// Turns the figures the reliability tiers wrote (bench/reliability/*.json) into
// bench/reliability.md, the page the README quotes. Run by `npm run test:reliability`
// (so by .ci/run) after the tiers passed. It refuses to write a page that would pass off
// old figures as this run's: every tier of test/reliability/ must have written its file,
// and all within one run (no file more than RUN_SPAN_MS older than the newest).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';

const dir = new URL('../bench/reliability/', import.meta.url);
const testDir = new URL('../test/reliability/', import.meta.url);
/** A whole run takes minutes; figures older than the newest by more than this were not written by it. */
const RUN_SPAN_MS = 60 * 60 * 1000;
const order = [
  'argv-fuzz',
  'hostile',
  'raw-http',
  'access-matrix',
  'grant-matrix',
  'concurrency',
  'busy',
  'purge-lock',
  'slow-clients',
  'crash',
  'local-files',
];

const expected = readdirSync(testDir)
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => f.slice(0, -'.test.ts'.length));
const tiers = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ name: f.slice(0, -5), ...JSON.parse(readFileSync(new URL(f, dir), 'utf8')) }))
  .sort((a, b) => (order.indexOf(a.name) + 1 || 99) - (order.indexOf(b.name) + 1 || 99));

const problems = [];
for (const name of expected)
  if (!tiers.some((t) => t.name === name)) problems.push(`tier ${name} wrote no figures (bench/reliability/${name}.json)`);
for (const t of tiers)
  if (!expected.includes(t.name)) problems.push(`bench/reliability/${t.name}.json belongs to no tier of test/reliability/`);
const newest = Math.max(...tiers.map((t) => Date.parse(t.at)));
for (const t of tiers) {
  if (newest - Date.parse(t.at) > RUN_SPAN_MS) problems.push(`tier ${t.name}: its figures (${t.at}) are older than this run's`);
}
if (problems.length) {
  console.error(`reliability-report: not writing bench/reliability.md:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}

const load = (t) => (t.loadavg ? `, load average ${t.loadavg.join(' / ')}` : '');
let md = `# Reliability suite\n\n\`npm run test:reliability\` (also run by \`.ci/run\`); every tier is bounded in time and count, all traffic on 127.0.0.1. Machine: ${cpus().length} cores, ${tiers[0]?.node ?? process.version}; each tier says when it ran and the load average (1, 5, 15 min) as it finished.\n`;
for (const t of tiers) {
  md += `\n## ${t.title}\n\n_${t.at}, Node ${t.node}${load(t)}_\n\n| figure | value |\n|---|---:|\n`;
  for (const [k, v] of Object.entries(t.figures)) md += `| ${k} | ${typeof v === 'number' ? v.toLocaleString('en-US') : v} |\n`;
}
writeFileSync(new URL('../reliability.md', dir), md);
console.log(`bench/reliability.md: ${tiers.length} tiers`);
