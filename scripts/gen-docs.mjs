// Regenerates the command reference in docs/reference.md (between its marker comments) and the man
// page man/lic.1 from the commander tree (`npm run docs`); scripts/reference.ts renders
// both. test/docs/reference.test.ts fails when either is stale.
// Node cannot run this TypeScript as it is (its imports name the .js files tsc's NodeNext
// resolution wants, and Node's type stripping does not map them), so the renderer is bundled first with esbuild into a
// temporary directory whose node_modules points at ours (dependencies stay external).
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const tmp = mkdtempSync(join(tmpdir(), 'lic-docs-'));
try {
  symlinkSync(join(root, 'node_modules'), join(tmp, 'node_modules'), 'dir');
  await build({
    entryPoints: { reference: join(root, 'scripts', 'reference.ts') },
    outdir: tmp,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    packages: 'external',
    // the demo assets, as scripts/build.mjs inlines them
    loader: { '.html': 'text', '.xml': 'text', '.snk': 'binary' },
    define: { __LIC_VERSION__: JSON.stringify(pkg.version) },
    logLevel: 'warning',
  });
  const ref = await import(pathToFileURL(join(tmp, 'reference.mjs')).href);
  const docs = await ref.collectCommands();
  const readmePath = join(root, 'docs', 'reference.md');
  writeFileSync(readmePath, ref.spliceReference(readFileSync(readmePath, 'utf8'), ref.renderReference(docs)));
  writeFileSync(join(root, 'man', 'lic.1'), ref.renderManPage(pkg.version, docs));
  console.log(`docs/reference.md and man/lic.1: ${docs.length - 1} commands`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
