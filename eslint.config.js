// ESLint flat config: typescript-eslint's type-aware checks over src, test, bench and
// scripts (`npm run lint`, part of `npm test`). Formatting is Prettier's job, not ESLint's.
import js from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

// The layers of src/ (docs/architecture.md, "The layers", states the same table in words).
// Each layer names the folders of src/ and the packages it must not load, by any means: a
// static `import`/`export … from`, a dynamic `import()`, a `require()` (of `createRequire`).
// test/docs/layers.test.ts lints planted violations with these very blocks (`layerBlocks`,
// below) and expects each to fail.

/** The terminal: only src/cli draws on it (src/commands may name its types). */
const TERMINAL = ['chalk', '@inquirer/*', 'string-width', 'wrap-ansi', 'cli-table3', 'node:tty', 'node:readline'];
/** The command line: src/cli and src/commands. */
const COMMAND_LINE = ['commander'];
/** Node's built-ins by their bare names: everywhere they are imported as `node:name`. */
const BARE_BUILTINS = builtinModules.filter((m) => !m.startsWith('_') && !m.startsWith('node:'));
/** The files that may make a `require` (createRequire): the SQLite driver, a native CommonJS module, loaded by a computed name. */
const REQUIRE_FILES = ['src/commands/serve/driver.ts', 'src/server/db-worker.ts'];
/** The one file that touches the real process (environment, streams, signals, cwd); bin/ is outside src. */
const PROCESS_FILES = ['src/cli/system.ts'];
/** What any file may read of `process`: which Node and machine this is (constants, not the outside world a test replaces). */
const PROCESS_FACTS = ['platform', 'arch', 'version', 'versions'];

/** `s` as a regular expression matching it literally. */
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A module specifier that names package `name` (`@scope/*`: any package of the scope) or one of its files. */
const packageRe = (name) => (name.endsWith('/*') ? `^${escape(name.slice(0, -1))}[^/]+(/|$)` : `^${escape(name)}(/|$)`);
/** A specifier that names a file in (or under) folder `name` of src/, from any depth of ../ */
const folderRe = (name) => `(^|/)${escape(name)}/`;

/**
 * The rules for one layer: `folders` (of src/) and `packages` it must not load, each with why.
 * `typesOnly`: a folder or package this layer may name the types of (erased at build), not load.
 * `lazy`: a specifier (regular expression source) this layer may load by `import()` though a folder rule forbids it.
 * `require`: may import createRequire; `processAllowed`: may touch `process`.
 */
function layerRules({ folders = [], packages = [], typesOnly = [], lazy, require = false, processAllowed = false }) {
  const patterns = folders.map(({ name, why }) => ({
    group: [`**/${name}/**`, `./${name}/**`],
    message: why,
    ...(typesOnly.includes(name) ? { allowTypeImports: true } : {}),
  }));
  const paths = [];
  for (const { name, why } of packages) {
    const allowTypeImports = typesOnly.includes(name) || undefined;
    if (name.endsWith('/*')) patterns.push({ group: [name, `${name}/**`], message: why, allowTypeImports });
    else paths.push({ name, message: why, allowTypeImports });
  }
  for (const name of BARE_BUILTINS) paths.push({ name, message: `import Node's built-in as 'node:${name}'` });
  paths.push({ name: 'node:process', message: 'only src/cli/system.ts touches the process; take it from the Context' });
  if (!require) {
    paths.push({
      name: 'node:module',
      importNames: ['createRequire'],
      message: `only ${REQUIRE_FILES.join(' and ')} make a require (the SQLite driver); import the module`,
    });
  }

  // the same specifiers, as a dynamic import() or a require() names them
  const forbidden = [
    ...folders.map(({ name, why }) => ({ re: folderRe(name), why })),
    ...packages.map(({ name, why }) => ({ re: packageRe(name), why })),
    { re: `^(${BARE_BUILTINS.map(escape).join('|')})$`, why: "name Node's built-in as 'node:…'" },
  ];
  const syntax = [];
  for (const { re, why } of forbidden) {
    const value = `/${re.replace(/\//g, '\\/')}/`;
    const except = lazy ? `:not([source.value=/${lazy.replace(/\//g, '\\/')}/])` : '';
    syntax.push(
      { selector: `ImportExpression[source.value=${value}]${except}`, message: why },
      { selector: `ImportExpression > TemplateLiteral.source[quasis.0.value.cooked=${value}]`, message: why },
      { selector: `CallExpression[callee.name='require'][arguments.0.value=${value}]`, message: why },
      { selector: `CallExpression[callee.property.name='resolve'][arguments.0.value=${value}]`, message: why },
      { selector: `CallExpression[callee.callee.name='createRequire'][arguments.0.value=${value}]`, message: why },
    );
  }
  return {
    '@typescript-eslint/no-restricted-imports': ['error', { patterns, paths }],
    'no-restricted-syntax': ['error', ...syntax],
    ...(processAllowed
      ? {}
      : {
          'no-restricted-properties': [
            'error',
            {
              object: 'process',
              allowProperties: PROCESS_FACTS,
              message: 'only src/cli/system.ts touches the process (env, streams, cwd, signals); take it from the Context',
            },
          ],
        }),
  };
}

/**
 * The layer blocks (files → layerRules), one per row of docs/architecture.md's table and one
 * per file of a named exception; then the `node:` rule for the files outside src.
 */
function layers() {
  const notCli = { name: 'cli', why: 'this layer must not import the CLI (src/cli): the CLI imports it' };
  const notCommands = { name: 'commands', why: 'only src/cli/program.ts imports the commands' };
  const notServer = { name: 'server', why: 'only `lic serve` (src/commands/serve) loads the service, through src/server/index.ts, lazily' };
  const notClient = { name: 'client', why: 'this layer must not import the HTTP client (src/client)' };
  const notConfig = { name: 'config', why: 'this layer must not import the profile store (src/config)' };
  const terminal = (why) => TERMINAL.map((name) => ({ name, why }));
  const noTerminal = [
    ...terminal('only src/cli knows the terminal'),
    ...COMMAND_LINE.map((name) => ({ name, why: 'only src/cli and src/commands know the command line' })),
  ];
  const leaves = ['src/schema/**/*.ts', 'src/wire.ts', 'src/time.ts', 'src/dotnet/**/*.ts', 'src/bounded-read.ts'];
  const rows = [
    { files: leaves, folders: [notCli, notCommands, notServer, notClient, notConfig], packages: noTerminal },
    { files: ['src/server/**/*.ts'], folders: [notCli, notCommands, notClient, notConfig], packages: noTerminal },
    { files: ['src/client/**/*.ts'], folders: [notCli, notCommands, notServer, notConfig], packages: noTerminal },
    { files: ['src/config/**/*.ts'], folders: [notCli, notCommands, notServer, notClient], packages: noTerminal },
    { files: ['src/cli/**/*.ts'], ignores: ['src/cli/program.ts'], folders: [notCommands, notServer] },
    { files: ['src/cli/program.ts'], folders: [notServer] },
    {
      files: ['src/commands/**/*.ts'],
      folders: [notServer],
      packages: terminal('only src/cli knows the terminal: a command draws through the Renderer and rt.confirm'),
      // types only (erased at build): a command may name the service's types and chalk's colour names
      typesOnly: ['server', ...TERMINAL],
    },
  ];
  // the named exceptions (the table's footnotes): a row's rules with one thing allowed
  const exceptions = [
    // `lic serve` loads the service lazily, and only through its entry point
    { files: ['src/commands/serve/**/*.ts'], lazy: '^(\\.\\./)+server/index\\.js$' },
    { files: REQUIRE_FILES, require: true },
    { files: PROCESS_FILES, processAllowed: true },
    // lic serve's lock file names the serving process and asks whether another one still runs
    // (process.pid, process.kill(pid, 0)): the service's own identity, which no Context holds
    { files: ['src/server/serve-lock.ts'], processAllowed: true },
  ];
  const prefix = (glob) => glob.replace(/\*\*\/\*\.ts$/, '');
  const within = (file, glob) => file.startsWith(prefix(glob));
  const blocks = [];
  for (const row of rows) {
    // each exception inside this row, in order (a narrower one after a wider one), with the wider ones it lies in
    const mine = exceptions
      .map((x) => ({ ...x, files: x.files.filter((f) => row.files.some((g) => within(f, g)) && !(row.ignores ?? []).includes(f)) }))
      .filter((x) => x.files.length);
    blocks.push({ files: row.files, ignores: [...(row.ignores ?? []), ...mine.flatMap((x) => x.files)], rules: layerRules(row) });
    for (const x of mine) {
      for (const f of x.files) {
        const all = mine.filter((y) => y.files.some((g) => within(f, g)));
        blocks.push({ files: [f], rules: layerRules(Object.assign({}, row, ...all)) });
      }
    }
  }
  blocks.push({
    // outside src: Node's built-ins by their `node:` names too (the blocks above say it for src)
    files: ['test/**', 'bench/**', 'scripts/**', 'bin/**', '*.ts', '*.js', '*.mjs'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: BARE_BUILTINS.map((name) => ({ name, message: `import Node's built-in as 'node:${name}'` })) },
      ],
    },
  });
  return blocks;
}

/** The import rules of this config, as they are in it (test/docs/layers.test.ts lints with these objects). */
export const layerBlocks = layers();

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
  ...layerBlocks,

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
        [
          'process',
          'console',
          'URL',
          'Buffer',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'setImmediate',
          'performance',
        ].map((g) => [g, 'readonly']),
      ),
    },
  },
  {
    // bin/lic.js is CommonJS (bin/package.json): Node starts a CommonJS entry sooner (bench/startup.md);
    // scripts/vendor-undici.cjs is the CommonJS entry of dist/vendor/undici.cjs (scripts/build.mjs)
    files: ['bin/**/*.js', 'scripts/**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
