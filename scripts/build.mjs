// Bundles our TypeScript into dist/ with esbuild. Dependencies stay external (they are
// installed beside us), so ESM imports of CJS packages work natively; the service is a
// separate chunk, loaded by dynamic import only inside `lic serve`.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

// a clean dist/: stale chunks of an older build would otherwise linger beside the new ones
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

await build({
  entryPoints: { cli: 'src/cli/index.ts', server: 'src/server/index.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  chunkNames: 'chunks/[name]-[hash]',
  // demo assets (src/server/seed/assets) inlined: text as a string, key blobs as bytes
  loader: { '.html': 'text', '.xml': 'text', '.snk': 'binary' },
  define: { __LIC_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});
