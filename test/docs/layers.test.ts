/**
 * The layers of docs/architecture.md are enforced by eslint.config.js: a deliberate
 * violation in each layer is an error of `npm run lint`, and the same file with the import
 * its layer allows is not. ESLint runs on the text of a real file of that layer, so the
 * type-aware project settings apply as they do in `npm run lint`.
 */
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: root });

/** The messages of the layer rules for `code` linted as the file `filePath` (relative to the repo). */
async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${filePath}` });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports' || m.ruleId === 'no-restricted-syntax')
    .map((m) => m.message);
}

// each: a file of the layer, an import it must not have, and one it may
const cases: [layer: string, file: string, bad: string, good: string][] = [
  ['server → CLI', 'src/server/errors.ts', `import { UsageError } from '../cli/errors.js';`, `import type { ApiKey } from '../wire.js';`],
  [
    'server → client',
    'src/server/errors.ts',
    `import { ApiError } from '../client/errors.js';`,
    `import { ResourceSchema } from '../schema/resource.js';`,
  ],
  ['server → the terminal', 'src/server/errors.ts', `import chalk from 'chalk';`, `import { createHash } from 'node:crypto';`],
  ['client → commander', 'src/client/errors.ts', `import { Command } from 'commander';`, `import type { ApiKey } from '../wire.js';`],
  ['client → CLI', 'src/client/errors.ts', `import { UsageError } from '../cli/errors.js';`, `import type { ApiKey } from '../wire.js';`],
  [
    'schema → server',
    'src/schema/resource.ts',
    `import { openDatabase } from '../server/index.js';`,
    `import type { PropertySchema } from './json-schema.js';`,
  ],
  [
    'CLI → a command',
    'src/cli/output.ts',
    `import { registerKeys } from '../commands/keys/index.js';`,
    `import type { Context } from './context.js';`,
  ],
  [
    'command → inside the server',
    'src/commands/serve/index.ts',
    `import { openDatabase } from '../../server/db.js';`,
    `import type { CommandDeps } from '../../cli/deps.js';`,
  ],
  [
    'command → inside the server, lazily',
    'src/commands/serve/index.ts',
    `export const load = () => import('../../server/seed/summary.js');`,
    `export const load = () => import('../../server/index.js');`,
  ],
];

describe('the layers are enforced by lint', () => {
  it.each(cases)(
    '%s: an error; the allowed import is not',
    async (_layer, file, bad, good) => {
      const errors = await layerErrors(file, `${bad}\nexport {};\n`);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/only|must not/);
      expect(await layerErrors(file, `${good}\nexport {};\n`)).toEqual([]);
    },
    60_000,
  );
});
