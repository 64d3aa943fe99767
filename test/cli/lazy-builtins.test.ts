// The stand-ins of Node built-ins that scripts/build.mjs bundles in their place
// (scripts/lazy-builtins.mjs): the real module loads on the first name read, never before, and
// every name reads as the real module's, both from the stand-in's code alone and through the
// interop code esbuild writes round it in the bundles (its __toESM for an ES module's import).
import { describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { createHash } from 'node:crypto';

interface LazyBuiltins {
  LAZY_BUILTINS: string[];
  standInSource: (name: string, constants?: string) => string;
  lazyBuiltins: import('esbuild').Plugin;
}
const lazy = (await import(new URL('../../scripts/lazy-builtins.mjs', import.meta.url).href)) as LazyBuiltins;

/** A `process` whose getBuiltinModule records what is loaded, and returns Node's real module. */
function recordingProcess() {
  const loaded: string[] = [];
  return {
    loaded,
    process: {
      getBuiltinModule: (id: string) => (loaded.push(id), process.getBuiltinModule(id)),
    },
  };
}

/** Runs CommonJS `code` with `process` in place of Node's: its module.exports. */
function runCommonJs(code: string, proc: unknown): Record<string, unknown> {
  const mod = { exports: {} as Record<string, unknown> };
  new Function('module', 'exports', 'require', 'process', code)(mod, mod.exports, (id: string) => process.getBuiltinModule(id), proc);
  return mod.exports;
}

describe('stand-ins of lazy built-ins', () => {
  it.each(lazy.LAZY_BUILTINS)('node:%s loads on the first name read, and each name is the real one', (name) => {
    const real = process.getBuiltinModule(`node:${name}`) as Record<string, unknown>;
    const names = Object.keys(real).filter((k) => k !== 'default');
    expect(names.length).toBeGreaterThan(0);
    const { loaded, process: proc } = recordingProcess();
    const standIn = runCommonJs(lazy.standInSource(name), proc);
    // what esbuild's __toESM reads of every import, and what a module does when it only holds the stand-in
    expect(standIn.__esModule).toBeUndefined();
    expect(Object.getOwnPropertyNames(standIn)).toEqual([]);
    expect(loaded).toEqual([]);
    for (const k of names) expect(standIn[k], k).toBe(real[k]);
    expect(names[0]! in standIn).toBe(true);
    expect('no such export' in standIn).toBe(false);
    expect(loaded).toEqual([`node:${name}`]);
  });

  it('answers `constants` without loading the module when given', () => {
    const { loaded, process: proc } = recordingProcess();
    const standIn = runCommonJs(lazy.standInSource('fs/promises', "process.getBuiltinModule('node:fs').constants"), proc);
    expect(standIn.constants).toBe(process.getBuiltinModule('node:fs').constants);
    expect(standIn.constants).toBe(standIn.constants);
    expect(loaded).toEqual(['node:fs']);
  });

  it('works through the bundle: named, default and namespace imports, loaded only when read', async () => {
    const out = await build({
      stdin: {
        contents: [
          "import { createHash } from 'node:crypto';",
          "import cp, * as ns from 'node:child_process';",
          "import { constants } from 'node:fs/promises';",
          "import { constants as h2 } from 'node:http2';",
          'export const before = globalThis.__loaded.slice();',
          'export const hash = () => createHash("sha256").update("lic").digest("hex");',
          'export const spawn = () => [cp.spawn, ns.spawn, ns.default.spawn];',
          'export const fsConstants = constants;',
          'export const authority = h2.HTTP2_HEADER_AUTHORITY;',
        ].join('\n'),
        resolveDir: process.cwd(),
        loader: 'ts',
      },
      bundle: true,
      format: 'cjs',
      platform: 'node',
      write: false,
      plugins: [lazy.lazyBuiltins],
      logLevel: 'silent',
    });
    const { loaded, process: proc } = recordingProcess();
    (globalThis as { __loaded?: string[] }).__loaded = loaded;
    try {
      const m = runCommonJs(out.outputFiles[0]!.text, proc) as {
        before: string[];
        hash: () => string;
        spawn: () => unknown[];
        fsConstants: unknown;
        authority: string;
      };
      // the module's top level ran: every import resolved, nothing loaded but node:fs's constants
      expect(m.before.filter((id) => id !== 'node:fs')).toEqual([]);
      expect(m.fsConstants).toBe(process.getBuiltinModule('node:fs').constants);
      expect(m.authority).toBe(':authority');
      expect(loaded).not.toContain('node:crypto');
      expect(m.hash()).toBe(createHash('sha256').update('lic').digest('hex'));
      expect(loaded).toContain('node:crypto');
      expect(loaded).not.toContain('node:child_process');
      const cpReal = process.getBuiltinModule('node:child_process');
      expect(m.spawn()).toEqual([cpReal.spawn, cpReal.spawn, cpReal.spawn]);
      expect(loaded).toContain('node:child_process');
      expect(loaded).not.toContain('node:http2');
    } finally {
      delete (globalThis as { __loaded?: string[] }).__loaded;
    }
  });
});
