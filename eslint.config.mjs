import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import cycles from './eslint-rules/noCycle.js';
import layers from './eslint-rules/layers.js';
import untrustedText from './eslint-rules/untrustedText.js';

export default tseslint.config(
  {
    ignores: ['dist/**', 'dist-vsix/**', 'node_modules/**', '.vscode-test/**', 'test/lint-fixtures/**', 'test/ui/screenshots/**', 'sample-workspace/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { tasklane: layers },
    rules: {
      'tasklane/layers': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-console': 'error',
      // zod 4's named `z` export is one object esbuild keeps whole, every locale included (about
      // 300 KB of dist/main.js); the namespace import keeps only what is used
      // (test/unit/packaging/bundleSize.test.ts measures it). From 'zod/v4', not 'zod': in the CLI
      // bundle, where the MCP SDK's dynamic imports make esbuild wrap zod, a namespace import of the
      // root's `export *` loses zod's initialisation and the CLI fails at load ("is not a constructor").
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value=/^zod(\\/v4)?$/] > ImportSpecifier[imported.name='z']",
          message: "Write `import * as z from 'zod/v4'`: the named import bundles all of zod's locales.",
        },
        {
          selector: "ImportDeclaration[source.value='zod']",
          message: "Import from 'zod/v4' (the same API): the CLI bundle loses zod's initialisation through the root's `export *`.",
        },
      ],
    },
  },
  // Notifications and modals take untrusted text only through src/core/security/surfaceText.ts;
  // the fixture proves the rule fires (test/unit/untrustedText.test.ts).
  {
    files: ['src/**/*.ts', 'test/lint-fixtures/untrusted/**/*.ts'],
    plugins: { 'tasklane-text': untrustedText },
    rules: { 'tasklane-text/untrusted-text': 'error' },
  },
  // Tree items, the status bar, quick pick items and modal details: the same, through forLabel and
  // its siblings (issue 40). Type-aware where it can be (a task's status is Tasklane's own word);
  // the fixture has its own tsconfig so the rule sees types there too (test/unit/untrustedText.test.ts).
  {
    files: ['src/host/**/*.ts', 'src/extension.ts', 'test/lint-fixtures/untrusted/**/*.ts'],
    plugins: { 'tasklane-text': untrustedText },
    rules: { 'tasklane-text/untrusted-label': 'error' },
  },
  {
    files: ['test/lint-fixtures/untrusted/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  },
  // Import cycles under src/, type-only imports included (import-x/no-cycle skips those, and a
  // type-only cycle is where a contract starts depending on its implementation). The fixtures
  // prove the rule fires (test/unit/importCycles.test.ts).
  {
    files: ['src/**/*.ts', 'test/lint-fixtures/cycle/**/*.ts'],
    plugins: { 'tasklane-cycles': cycles },
    rules: { 'tasklane-cycles/no-cycle': 'error' },
  },
  // Type-aware rules: a promise is awaited, returned, handled (.catch with a log) or explicitly
  // `void`ed with the reason in a comment; an async function is never passed where a plain
  // callback is expected (its rejection would vanish). One TypeScript program (tsconfig.json).
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    // The layer fixtures are linted on purpose by test/unit/layers.test.ts, outside any program.
    ignores: ['test/lint-fixtures/**'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        URL: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
