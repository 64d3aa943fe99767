/**
 * The read-only examples of the README and docs/, run for real against `lic serve --seed demo`: every
 * `lic … list/get/show/tail` line of its sh blocks (no pipes, redirections or files) must
 * exit 0 and print something — so an example whose date lies outside the demo's 30 days,
 * or whose customer code or ids don't exist in the demo, fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

import { useService } from '../helpers/fixtures.js';

/** The README and the guide in docs/ (not the generated reference, nor the contract): every page a reader follows. */
const docs = readdirSync(new URL('../../docs/', import.meta.url)).filter(
  (f) => f.endsWith('.md') && !['reference.md', 'contract.md'].includes(f),
);
const README = [
  readFileSync(new URL('../../README.md', import.meta.url), 'utf8'),
  ...docs.map((f) => readFileSync(new URL(`../../docs/${f}`, import.meta.url), 'utf8')),
].join('\n');

/** Splits a shell line into words: single quotes literal, double quotes with \\" escapes; stops at an unquoted #. */
function words(line: string): string[] {
  const out: string[] = [];
  let cur: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      cur = (cur ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (ch === '"') {
      let j = i + 1;
      let s = '';
      for (; line[j] !== '"'; j++) s += line[j] === '\\' ? line[++j] : line[j];
      cur = (cur ?? '') + s;
      i = j;
    } else if (ch === '#' && cur === undefined) break;
    else if (/\s/.test(ch)) {
      if (cur !== undefined) out.push(cur);
      cur = undefined;
    } else cur = (cur ?? '') + ch;
  }
  if (cur !== undefined) out.push(cur);
  return out;
}

/** `lic` lines of the README's sh blocks that only read and need nothing but the service (and maybe the Customer key). */
const examples = [...README.matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap((m) => m[1]!.split('\n'))
  .map((l) => l.trim())
  .filter((l) =>
    /^(LIC_API_KEY=\$CUSTOMER_KEY )?lic (keys|log|resources|assemblies|orders|templates|products) (list|get|show|tail)\b/.test(l),
  )
  // no pipes, redirections or variables outside quotes; nothing that follows or writes files
  .filter(
    (l) =>
      !/[|<>$]/.test(
        l
          .replace(/^LIC_API_KEY=\$CUSTOMER_KEY /, '')
          .replace(/'[^']*'|"[^"]*"/g, '')
          .replace(/#.*/, ''),
      ) && !/\s-f\b|--follow|--data-out/.test(l),
  );

let customerKey: string;
const { svc } = useService({ seed: 'demo' });
beforeAll(async () => {
  customerKey = svc.issuedKeys.find((k) => k.role === 'Customer')!.key;
});

describe('README examples against lic serve --seed demo', () => {
  it('finds the examples (list, show, tail of every noun)', () => {
    expect(examples.length).toBeGreaterThanOrEqual(15);
    for (const noun of ['keys', 'log', 'orders', 'templates', 'products', 'resources', 'assemblies'])
      expect(examples.some((l) => l.includes(`lic ${noun} `))).toBe(true);
  });

  it.each(examples)('%s', async (line) => {
    const asCustomer = line.startsWith('LIC_API_KEY=$CUSTOMER_KEY ');
    const args = words(line.replace(/^LIC_API_KEY=\$CUSTOMER_KEY /, '')).slice(1);
    const r = await runCli(args, { env: { LIC_BASE_URL: svc.url, LIC_API_KEY: asCustomer ? customerKey : svc.adminKey } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim(), 'an example that prints nothing against the demo data').not.toBe('');
  });
});
