// scripts/lean-bundle.mjs: the noun bundles fill a lazy module's namespace when the module is
// first initialised. Checked on real esbuild output built as scripts/build.mjs builds a noun's
// bundle (dynamic imports, a cycle that reads a namespace mid-initialisation, a re-export), on
// statements it must leave alone, and on the dist/cli-NOUN.cjs files of the build.
import { describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { parse } from 'acorn';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const { leanBundle } = (await import(new URL('../../scripts/lean-bundle.mjs', import.meta.url).href)) as {
  leanBundle: (text: string) => { text: string; moved: number; kept: number };
};
const ROOT = new URL('../..', import.meta.url).pathname;

/** Modules of a small program, as the CLI's are: an entry that imports its parts dynamically. */
const FILES: Record<string, string> = {
  'entry.ts': `
    export async function run(log: string[]) {
      const a = await import('./a.js');
      log.push(a.greet('x'), String(a.fromB()));
      const t = await import('./table.js');
      log.push(t.width('abc'), String(t.terminal()));
      return Object.keys(a).sort().join(',');
    }`,
  // a and b import each other's namespace; b reads a's during its own initialisation
  'a.ts': `
    import * as b from './b.js';
    export const name = 'a';
    export function greet(s: string) { return name + ':' + s; }
    export function fromB() { return b.seenA; }`,
  'b.ts': `
    import * as a from './a.js';
    export const seenA = typeof a.greet;`,
  // a re-export of a binding another module declares (table.ts's terminalWidth in lic)
  'table.ts': `
    export { terminal } from './layout.js';
    export const GAP = 2;
    export function width(s: string) { return String(s.length + GAP); }`,
  'layout.ts': `export function terminal() { return 80; }`,
};

/** FILES bundled as scripts/build.mjs bundles a noun: one CommonJS function expression, no whitespace, no dynamic import. */
async function nounLikeBundle(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'lean-'));
  for (const [name, text] of Object.entries(FILES)) writeFileSync(join(dir, name), text);
  const out = await build({
    entryPoints: [join(dir, 'entry.ts')],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    target: 'node22',
    minifyWhitespace: true,
    supported: { 'dynamic-import': false },
    banner: { js: '(function (exports, require, module, __filename, __dirname) {' },
    footer: { js: '})' },
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.text;
}

/** Runs a bundle written as one function expression; its exports' `run` result and log. */
async function runBundle(text: string): Promise<{ keys: string; log: string[] }> {
  const mod = { exports: {} as { run: (log: string[]) => Promise<string> } };
  (0, eval)(text)(mod.exports, createRequire(import.meta.url), mod, '/x.cjs', '/');
  const log: string[] = [];
  const keys = await mod.exports.run(log);
  return { keys, log };
}

/** The names of the namespaces a bundle's top level fills (`__export(NS, ...)` statements). */
function topLevelNamespaces(text: string): string[] {
  const ast = parse(text, { ecmaVersion: 'latest', allowReturnOutsideFunction: true }) as unknown as {
    body: {
      expression: { body: { body: { type: string; expression?: { callee?: { name?: string }; arguments: { name: string }[] } }[] } };
    }[];
  };
  return ast.body[0]!.expression.body.body.filter((s) => s.type === 'ExpressionStatement' && s.expression?.callee?.name === '__export').map(
    (s) => s.expression!.arguments[0]!.name,
  );
}

describe('leanBundle', () => {
  it('moves each lazy module namespace into its initialiser; the program runs as esbuild wrote it', async () => {
    const original = await nounLikeBundle();
    expect(topLevelNamespaces(original).sort()).toEqual(['a_exports', 'entry_exports', 'table_exports']);
    const lean = leanBundle(original);
    // the entry's namespace, kept: it is the bundle's module.exports, filled at the start
    expect(lean).toMatchObject({ moved: 2, kept: 1 });
    expect(topLevelNamespaces(lean.text)).toEqual(['entry_exports']);
    expect(lean.text).toMatch(/var init_a=__esm\(\{"[^"]*a\.ts"\(\)\{("use strict";)?__export\(a_exports,/);
    expect(await runBundle(lean.text)).toEqual(await runBundle(original));
    expect(await runBundle(lean.text)).toEqual({ keys: 'fromB,greet,name', log: ['a:x', 'function', '5', '80'] });
  });

  it('leaves a namespace whose next initialiser is not its own, or with code that runs between', () => {
    const cases = [
      // a value between: code of a module that is not lazy
      'var x_exports={};__export(x_exports,{a:()=>a});var a=1;var init_x=__esm({"src/x.ts"(){}});',
      // the next initialiser is another module's
      'var x_exports={};__export(x_exports,{a:()=>a});function a(){}var init_y=__esm({"src/y.ts"(){}});',
      // a statement that runs between
      'var x_exports={};__export(x_exports,{a:()=>a});f();var init_x=__esm({"src/x.ts"(){}});',
      // no initialiser at all
      'var x_exports={};__export(x_exports,{a:()=>a});function a(){}',
    ];
    for (const text of cases) expect(leanBundle(text), text).toEqual({ text, moved: 0, kept: 1 });
    // another namespace first: neither is the initialiser's neighbour
    const two = 'var x_exports={};__export(x_exports,{a:()=>a});__export(z_exports,{});var init_x=__esm({"src/x.ts"(){}});';
    expect(leanBundle(two)).toEqual({ text: two, moved: 0, kept: 2 });
    const own = 'var x_exports={};__export(x_exports,{a:()=>a});function a(){}var b;var init_x=__esm({"src/x.ts"(){b=1}});';
    expect(leanBundle(own)).toEqual({
      text: 'var x_exports={};function a(){}var b;var init_x=__esm({"src/x.ts"(){__export(x_exports,{a:()=>a});b=1}});',
      moved: 1,
      kept: 0,
    });
  });

  it('names esbuild gives: an index file by its directory, a number for a second one', () => {
    const text = (ns: string, path: string) => `var ${ns}={};__export(${ns},{});var init=__esm({"${path}"(){}});`;
    expect(leanBundle(text('keys_exports', 'src/commands/keys/index.ts')).moved).toBe(1);
    expect(leanBundle(text('env_paths_exports', 'node_modules/env-paths/index.js')).moved).toBe(1);
    expect(leanBundle(text('sync_exports2', 'vendor:csv-stringify/sync')).moved).toBe(1);
    expect(leanBundle(text('keys_exports', 'src/commands/log/index.ts')).moved).toBe(0);
  });

  it('the build: each dist/cli-NOUN.cjs fills no lazy namespace at its start, only its entry one', () => {
    const files = readdirSync(join(ROOT, 'dist')).filter((f) => /^cli-[a-z]+\.cjs$/.test(f));
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) expect(topLevelNamespaces(readFileSync(join(ROOT, 'dist', f), 'utf8')), f).toEqual(['index_exports']);
  });
});
