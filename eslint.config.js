// ESLint flat config: typescript-eslint's type-aware checks over src, test, bench and
// scripts (`npm run lint`, part of `npm test`). Formatting is Prettier's job, not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** `@typescript-eslint/no-restricted-imports` patterns: a folder of src/ (any depth of ../) and the message saying why. */
const folder = (name, why) => ({ group: [`**/${name}/**`, `./${name}/**`], message: why });
const TERMINAL = ['commander', 'chalk', 'cli-table3', 'prompts', 'node:tty', 'node:readline'].map((name) => ({
  name,
  message: 'only src/cli and src/commands know the terminal and the command line',
}));

/**
 * One config block per layer of src/. Leaves (schema, wire, time, dotnet, local-files) import
 * nothing of ours but each other; server stands alone (its own files, the leaves);
 * client knows HTTP, not the terminal; config knows the wire types; only src/cli/program.ts
 * imports the commands, and a command reaches the service only through src/server/index.ts.
 */
function layers() {
  const notCli = folder('cli', 'this layer must not import the CLI (src/cli): the CLI imports it');
  const notCommands = folder('commands', 'only src/cli/program.ts imports the commands');
  const notServer = folder('server', 'only `lic serve` (src/commands/serve) loads the service, through src/server/index.ts');
  const notClient = folder('client', 'this layer must not import the HTTP client (src/client)');
  const notConfig = folder('config', 'this layer must not import the profile store (src/config)');
  const rule = (patterns, paths = []) => ['error', { patterns, paths }];
  return [
    {
      files: ['src/schema/**/*.ts', 'src/wire.ts', 'src/time.ts', 'src/dotnet/**/*.ts', 'src/local-files.ts'],
      rules: { '@typescript-eslint/no-restricted-imports': rule([notCli, notCommands, notServer, notClient, notConfig], TERMINAL) },
    },
    {
      files: ['src/server/**/*.ts'],
      rules: { '@typescript-eslint/no-restricted-imports': rule([notCli, notCommands, notClient, notConfig], TERMINAL) },
    },
    {
      files: ['src/client/**/*.ts'],
      rules: { '@typescript-eslint/no-restricted-imports': rule([notCli, notCommands, notServer, notConfig], TERMINAL) },
    },
    {
      files: ['src/config/**/*.ts'],
      rules: { '@typescript-eslint/no-restricted-imports': rule([notCli, notCommands, notServer, notClient], TERMINAL) },
    },
    {
      files: ['src/cli/**/*.ts'],
      ignores: ['src/cli/program.ts'],
      rules: { '@typescript-eslint/no-restricted-imports': rule([notCommands, notServer]) },
    },
    {
      files: ['src/commands/**/*.ts'],
      rules: {
        // types only (erased at build): a command may name the service's types, not load it
        '@typescript-eslint/no-restricted-imports': rule([{ ...notServer, allowTypeImports: true }]),
        // `lic serve` loads the service lazily, and only through its entry point
        'no-restricted-syntax': [
          'error',
          {
            selector: 'ImportExpression[source.value=/\\/server\\/(?!index\\.js$)/]',
            message: 'a command reaches the service only through src/server/index.ts',
          },
        ],
      },
    },
  ];
}

export default tseslint.config(
  { ignores: ['dist/**', 'completions/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.config.ts', 'vitest.assets.ts'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // the reason for type-aware linting: a promise nobody awaits loses its error (and its exit code)
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // `_name` marks a parameter or destructured field that is deliberately unused (commander's positional action arguments)
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // the CLI matches control characters on purpose: terminal escapes (\x1b), and C0 controls
      // refused in header values, filter strings and names
      'no-control-regex': 'off',
      // `if (x) ((a = 1), (b = 2));` — comma sequences of assignments are this codebase's
      // style in the parsers; the rule would flag each (8 places), not find a bug
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
  // The layers (docs/architecture.md): what each folder of src/ may import. A deliberate
  // violation fails `npm run lint` (test/docs/layers.test.ts proves it).
  ...layers(),
  {
    // tests read loosely typed JSON replies (`body: any` from test/helpers/service.ts http()) on purpose
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    // Node's globals used by bin/, scripts/ and bench/ (in .ts files TypeScript checks names)
    languageOptions: {
      globals: Object.fromEntries(
        ['process', 'console', 'URL', 'Buffer', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'].map((g) => [
          g,
          'readonly',
        ]),
      ),
    },
  },
  {
    // bin/lic.js is CommonJS (bin/package.json): Node starts a CommonJS entry sooner (bench/startup.md)
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
