// A rewrite of esbuild's output for the noun bundles (scripts/build.mjs) that makes their start
// allocate less: a lazily initialised module's namespace object is filled when the module is
// first initialised, not when the bundle starts (test/cli/lean-bundle.test.ts).
import { parse } from 'acorn';

/**
 * `text` (an esbuild CommonJS bundle, optionally one function expression round its code, as
 * scripts/build.mjs writes a noun's) with each top-level `__export(NS, {...})` of a module that
 * esbuild wrapped in a lazy initialiser (`var init_X = __esm({...})`) moved to the start of that
 * initialiser's body, as `{ text, moved, kept }` (how many namespaces moved and stayed).
 *
 * Why: esbuild makes a namespace object for every module that is imported dynamically (each
 * noun's and verb's module, the table, the profile store…) and fills it at the bundle's start:
 * a getter closure and a property descriptor for each export, in an object that turns into a
 * dictionary. `lic keys list` initialises 3 of its bundle's 21, yet paid for all (~27 KB of V8's
 * young generation of 1 MiB, which that run overflows once: docs/benchmarks.md).
 *
 * Sound because esbuild reads a lazy module's namespace only after calling its initialiser
 * (`(init_X(), NS)`, or init_X() first in an importer's own initialiser), and the move puts the
 * getters first in it, so a cycle that reads NS while init_X is still running sees them too.
 * A namespace moves only when the next initialiser is its module's and nothing between them
 * runs (ownInitialiser); anything else stays where esbuild put it.
 * Throws when `text` does not parse (acorn, ES latest).
 */
export function leanBundle(text) {
  const ast = parse(text, { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true });
  const body = topLevel(ast);
  const edits = [];
  let moved = 0;
  let kept = 0;
  for (let i = 0; i < body.length; i++) {
    const ns = namespaceExport(body[i]);
    if (!ns) continue;
    const target = ownInitialiser(body, i, ns);
    if (!target) {
      kept++;
      continue;
    }
    const stmt = body[i];
    edits.push({ at: stmt.start, end: stmt.end, text: '' });
    edits.push({ at: target, end: target, text: text.slice(stmt.start, stmt.end) });
    moved++;
  }
  edits.sort((a, b) => b.at - a.at || b.end - a.end);
  let out = text;
  for (const e of edits) out = out.slice(0, e.at) + e.text + out.slice(e.end);
  return { text: out, moved, kept };
}

/** The statements of the bundle's top level: the program's, or those of the one function expression it is. */
function topLevel(ast) {
  const only = ast.body.length === 1 ? ast.body[0] : undefined;
  const fn = only?.type === 'ExpressionStatement' ? only.expression : undefined;
  return fn?.type === 'FunctionExpression' ? fn.body.body : ast.body;
}

/** For a statement `__export(NS, {...})`: `{ name: 'NS' }`; else undefined. */
function namespaceExport(stmt) {
  const call = stmt.type === 'ExpressionStatement' ? stmt.expression : undefined;
  if (call?.type !== 'CallExpression' || call.callee.type !== 'Identifier' || call.callee.name !== '__export') return undefined;
  const [target, all] = call.arguments;
  return target?.type === 'Identifier' && all?.type === 'ObjectExpression' ? { name: target.name } : undefined;
}

/**
 * Where the namespace `ns` of body[i] moves to: the offset just inside the body of the first
 * `var init_X = __esm({ "path"() { ... } })` after it (past a "use strict" directive), when that
 * is its module's: `ns` is named after `path` as esbuild names namespaces (esbuildNames, with
 * esbuild's number for a second one: `table_exports2`), and every statement between is one esbuild hoists out of a
 * lazy module (a function declaration, a `var` without a value); else undefined.
 */
function ownInitialiser(body, i, ns) {
  for (let j = i + 1; j < body.length; j++) {
    const s = body[j];
    if (s.type === 'FunctionDeclaration') continue;
    if (s.type !== 'VariableDeclaration') return undefined;
    const init = s.declarations.find((d) => d.init);
    if (!init) continue;
    if (s.declarations.length !== 1 || init.init.type !== 'CallExpression' || init.init.callee.name !== '__esm') return undefined;
    const wrapper = init.init.arguments[0]?.type === 'ObjectExpression' ? init.init.arguments[0].properties[0] : undefined;
    const path = wrapper?.key.type === 'Literal' ? String(wrapper.key.value) : undefined;
    if (path === undefined || wrapper.value.type !== 'FunctionExpression' || !esbuildNames(path).includes(ns.name.replace(/\d+$/, '')))
      return undefined;
    const block = wrapper.value.body;
    const first = block.body[0];
    return first?.directive ? first.end : block.start + 1;
  }
  return undefined;
}

/**
 * The namespace names esbuild may give the module at `path`: from its file name, or its
 * directory's for an index file (`src/cli/table.ts` → table_exports, `src/commands/keys/index.ts`
 * → keys_exports, `node_modules/env-paths/index.js` → env_paths_exports, `vendor:chalk` → chalk_exports).
 */
function esbuildNames(path) {
  const parts = path.split(/[/:]/);
  const base = parts.pop().replace(/\.[^.]*$/, '');
  const names = base === 'index' && parts.length ? [base, parts.pop()] : [base];
  return names.map((n) => `${n.replace(/[^A-Za-z0-9_$]/g, '_').replace(/^(?=\d)/, '_')}_exports`);
}
