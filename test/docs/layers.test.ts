/**
 * The layers of docs/architecture.md are enforced by eslint.config.js: a violation planted in
 * a file of each layer — a static import, a dynamic `import()`, a `require()`, a terminal
 * package, a bare Node built-in, a touch of `process` — is an error of `npm run lint` with
 * the rule named here, and a file with only what its layer allows is not. The planted text is
 * linted as that file (`lintText` with its path, nothing copied) with the very config objects
 * eslint.config.js exports and includes (`layerBlocks`), on typescript-eslint's parser without
 * the type-aware project: those rules need no types, and the project would cost seconds a case.
 */
import { ESLint, type Linter } from 'eslint';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

// eslint.config.js is plain JavaScript (no declarations): its two exports, typed here
const { default: config, layerBlocks } = (await import('../../eslint.config.js' as string)) as {
  default: Linter.Config[];
  layerBlocks: Linter.Config[];
};
const root = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [tseslint.configs.base, { files: ['**/*.ts'] }, ...layerBlocks],
});

const IMPORTS = '@typescript-eslint/no-restricted-imports';
const SYNTAX = 'no-restricted-syntax';
const PROCESS = 'no-restricted-properties';
const BARE = 'no-restricted-imports';

/** The rule ids of the errors for `code` linted as the file `filePath` (relative to the repo). */
async function ruleIds(filePath: string, code: string): Promise<(string | null)[]> {
  const [result] = await eslint.lintText(`${code}\nexport {};\n`, { filePath: `${root}${filePath}` });
  return (result?.messages ?? []).map((m) => m.ruleId);
}

// each: what is planted, the file of the layer it is planted in, the text, and the rule(s) that must catch it
const violations: [what: string, file: string, code: string, rule: string | string[]][] = [
  // the review's findings (issue 32), each of which passed lint before
  ['CLI → server, lazily', 'src/cli/output.ts', `export const load = () => import('../server/index.js');`, SYNTAX],
  ['client → CLI, lazily', 'src/client/errors.ts', `export const load = () => import('../cli/errors.js');`, SYNTAX],
  ['server → client, lazily', 'src/server/errors.ts', `export const load = () => import('../client/request.js');`, SYNTAX],
  ['server → @inquirer/confirm', 'src/server/errors.ts', `import confirm from '@inquirer/confirm';\nvoid confirm;`, IMPORTS],
  ['server → @inquirer/confirm, lazily', 'src/server/errors.ts', `export const load = () => import('@inquirer/confirm');`, SYNTAX],
  ['client → string-width', 'src/client/errors.ts', `import stringWidth from 'string-width';\nvoid stringWidth;`, IMPORTS],
  ['a bare Node built-in in the CLI', 'src/cli/table.ts', `import { isatty } from 'tty';\nvoid isatty;`, IMPORTS],
  ['a bare Node built-in, lazily', 'src/client/errors.ts', `export const load = () => import('tty');`, SYNTAX],
  ['a bare Node built-in in a test', 'test/docs/planted.test.ts', `import { isatty } from 'tty';\nvoid isatty;`, BARE],
  ['a bare Node built-in in a script', 'scripts/planted.mjs', `import { readFileSync } from 'fs';\nvoid readFileSync;`, BARE],
  ['a command → process.cwd()', 'src/commands/state/file.ts', `export const here = process.cwd();`, PROCESS],
  ['the server → process.stderr', 'src/server/app.ts', `export const log = process.stderr;`, PROCESS],
  ['the CLI → process.env outside system.ts', 'src/cli/runtime.ts', `export const { env } = process;`, PROCESS],
  ['a leaf → node:process', 'src/time.ts', `import { env } from 'node:process';\nvoid env;`, IMPORTS],
  // require, and the createRequire that makes one
  ['client → createRequire', 'src/client/errors.ts', `import { createRequire } from 'node:module';\nvoid createRequire;`, IMPORTS],
  ['server → CLI, by require', 'src/server/errors.ts', `export const m = require('../cli/errors.js');`, SYNTAX],
  [
    'config → server, by createRequire',
    'src/config/profiles.ts',
    `import { createRequire } from 'node:module';\nexport const m = createRequire(import.meta.url)('../server/index.js');`,
    [IMPORTS, SYNTAX],
  ],
  // the rest of the table
  ['server → CLI', 'src/server/errors.ts', `import { UsageError } from '../cli/errors.js';\nvoid UsageError;`, IMPORTS],
  ['server → client', 'src/server/errors.ts', `import { ApiError } from '../client/errors.js';\nvoid ApiError;`, IMPORTS],
  ['server → the terminal', 'src/server/errors.ts', `import chalk from 'chalk';\nvoid chalk;`, IMPORTS],
  ['client → commander', 'src/client/errors.ts', `import { Command } from 'commander';\nvoid Command;`, IMPORTS],
  ['client → CLI', 'src/client/errors.ts', `import { UsageError } from '../cli/errors.js';\nvoid UsageError;`, IMPORTS],
  ['server → CLI, re-exported', 'src/server/errors.ts', `export { UsageError } from '../cli/errors.js';`, IMPORTS],
  ['client → CLI, lazily by a template', 'src/client/errors.ts', 'export const load = () => import(`../cli/errors.js`);', SYNTAX],
  ['config → client, lazily', 'src/config/profiles.ts', `export const load = () => import('../client/request.js');`, SYNTAX],
  ['schema → server', 'src/schema/resource.ts', `import { openDatabase } from '../server/index.js';\nvoid openDatabase;`, IMPORTS],
  ['a leaf → the CLI, lazily', 'src/wire.ts', `export const load = () => import('./cli/errors.js');`, SYNTAX],
  ['CLI → a command', 'src/cli/output.ts', `import { loadKeys } from '../commands/keys/index.js';\nvoid loadKeys;`, IMPORTS],
  ['CLI → a command, lazily', 'src/cli/output.ts', `export const load = () => import('../commands/keys/index.js');`, SYNTAX],
  ['program → server, lazily', 'src/cli/program.ts', `export const load = () => import('../server/index.js');`, SYNTAX],
  ['command → cli-table3', 'src/commands/keys/list.ts', `import Table from 'cli-table3';\nvoid Table;`, IMPORTS],
  ['command → chalk, lazily', 'src/commands/keys/list.ts', `export const load = () => import('chalk');`, SYNTAX],
  [
    'command → the server',
    'src/commands/keys/list.ts',
    `import { startService } from '../../server/index.js';\nvoid startService;`,
    IMPORTS,
  ],
  ['command → the server, lazily', 'src/commands/keys/list.ts', `export const load = () => import('../../server/index.js');`, SYNTAX],
  [
    'serve → inside the server',
    'src/commands/serve/index.ts',
    `import { openDatabase } from '../../server/db.js';\nvoid openDatabase;`,
    IMPORTS,
  ],
  [
    'serve → inside the server, lazily',
    'src/commands/serve/index.ts',
    `export const load = () => import('../../server/seed/summary.js');`,
    SYNTAX,
  ],
  [
    'serve → server/index.ts, statically',
    'src/commands/serve/index.ts',
    `import { startService } from '../../server/index.js';\nvoid startService;`,
    IMPORTS,
  ],
];

// each: a file of the layer and what it may import (its named exceptions included)
const clean: [layer: string, file: string, code: string][] = [
  [
    'schema',
    'src/schema/resource.ts',
    `import type { PropertySchema } from './json-schema.js';\nimport { Type } from 'typebox';\nvoid Type;`,
  ],
  [
    'a leaf file',
    'src/wire.ts',
    `import type { ApiKeyRecord } from './schema/api-key.js';\nexport const load = () => import('node:fs/promises');`,
  ],
  ['dotnet', 'src/dotnet/strong-name.ts', `import { createHash } from 'node:crypto';\nvoid createHash;\nexport const arch = process.arch;`],
  [
    'server',
    'src/server/errors.ts',
    `import type { ApiKey } from '../wire.js';\nimport { createHash } from 'node:crypto';\nvoid createHash;\nexport const load = () => import('./seed/demo.js');`,
  ],
  [
    "server: the database's worker threads (createRequire)",
    'src/server/db-worker.ts',
    `import { createRequire } from 'node:module';\nexport const driver = createRequire(import.meta.url).resolve('better-sqlite3');`,
  ],
  ['client', 'src/client/errors.ts', `import type { ApiKey } from '../wire.js';\nimport { request } from 'undici';\nvoid request;`],
  [
    'config',
    'src/config/profiles.ts',
    `import { readBounded } from '../bounded-read.js';\nvoid readBounded;\nexport const load = () => import('conf');`,
  ],
  [
    'cli',
    'src/cli/output.ts',
    `import { isatty } from 'node:tty';\nimport Table from 'cli-table3';\nimport chalk from 'chalk';\nimport { Command } from 'commander';\nvoid [isatty, Table, chalk, Command];\n` +
      `export const load = () => Promise.all([import('../client/request.js'), import('../config/profiles.js'), import('string-width'), import('@inquirer/confirm')]);`,
  ],
  ['cli: system.ts (the process)', 'src/cli/system.ts', `export const env = process.env;\nexport const cwd = process.cwd();`],
  ['cli: program.ts (the commands)', 'src/cli/program.ts', `import { loadKeys } from '../commands/keys/index.js';\nvoid loadKeys;`],
  [
    'commands',
    'src/commands/keys/list.ts',
    `import type { ForegroundColorName } from 'chalk';\nimport type { IssuedKey } from '../../server/index.js';\nimport { Command } from 'commander';\nimport { ApiError } from '../../client/errors.js';\n` +
      `void [Command, ApiError];\nexport const load = () => import('../../config/key-storage.js');\nexport const node = process.versions.node;`,
  ],
  ['commands: serve (the service, lazily)', 'src/commands/serve/index.ts', `export const load = () => import('../../server/index.js');`],
  [
    'commands: the SQLite driver (createRequire)',
    'src/commands/serve/driver.ts',
    `import { createRequire } from 'node:module';\nexport const load = (id: string) => createRequire(import.meta.url)(id);\nexport const platform = process.platform;`,
  ],
  ['a test', 'test/docs/planted.test.ts', `import { isatty } from 'node:tty';\nvoid isatty;\nexport const cwd = process.cwd();`],
];

describe('the layers are enforced by lint', () => {
  it('lints with the blocks eslint.config.js is made of, not a copy', () => {
    for (const block of layerBlocks) expect(config).toContain(block);
  });

  it.each(violations)('%s: an error of its rule', async (_what, file, code, rule) => {
    expect(await ruleIds(file, code)).toEqual([rule].flat());
  });

  it.each(clean)('%s: what the layer may import is not an error', async (_layer, file, code) => {
    expect(await ruleIds(file, code)).toEqual([]);
  });
});
