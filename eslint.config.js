// ESLint flat config: typescript-eslint's type-aware checks over src, test, bench and
// scripts (`npm run lint`, part of `npm test`). Formatting is Prettier's job, not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
