// Turns the figures the reliability tiers wrote (bench/reliability/*.json) into
// bench/reliability.md, the page the README quotes. Run by `npm run test:reliability`.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';

const dir = new URL('../bench/reliability/', import.meta.url);
const order = ['argv-fuzz', 'hostile', 'access-matrix', 'concurrency', 'crash'];
const tiers = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ name: f.slice(0, -5), ...JSON.parse(readFileSync(new URL(f, dir), 'utf8')) }))
  .sort((a, b) => (order.indexOf(a.name) + 1 || 99) - (order.indexOf(b.name) + 1 || 99));
let md = `# Reliability suite\n\n\`npm run test:reliability\` (also run by \`.ci/run\`); every tier is bounded in time and count, all traffic on 127.0.0.1. Machine: ${cpus().length} cores, ${tiers[0]?.node ?? process.version}.\n`;
for (const t of tiers) {
  md += `\n## ${t.title}\n\n_${t.at}_\n\n| figure | value |\n|---|---:|\n`;
  for (const [k, v] of Object.entries(t.figures)) md += `| ${k} | ${typeof v === 'number' ? v.toLocaleString('en-US') : v} |\n`;
}
writeFileSync(new URL('../reliability.md', dir), md);
console.log(`bench/reliability.md: ${tiers.length} tiers`);
