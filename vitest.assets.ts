/**
 * Loads the demo asset files (src/server/seed/assets) in tests the way esbuild's `loader`
 * does in the build (scripts/build.mjs): .html and .xml as a text default export, .snk as
 * a Uint8Array, so src/server/seed/demo-assets.ts imports them unchanged under vitest.
 */
import { readFileSync } from 'node:fs';
import type { Plugin } from 'vitest/config';

const TEXT = /\.(html|xml)$/;
const BYTES = /\.snk$/;

/** The vite plugin; used by vitest.config.ts and vitest.reliability.config.ts. */
export function assetLoader(): Plugin {
  return {
    name: 'lic-asset-loader',
    enforce: 'pre',
    load(id) {
      const file = id.split('?')[0]!;
      if (!file.includes('/src/server/seed/assets/')) return null;
      if (TEXT.test(file)) return `export default ${JSON.stringify(readFileSync(file, 'utf8'))};`;
      if (BYTES.test(file))
        return `export default new Uint8Array(Buffer.from(${JSON.stringify(readFileSync(file).toString('base64'))}, 'base64'));`;
      return null;
    },
  };
}
