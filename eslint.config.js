// `eslint .` in `npm run lint`: typescript-eslint's recommendedTypeChecked over every TypeScript folder, each file
// checked with its nearest tsconfig.json (console/src with console/tsconfig.json, the rest with the root one).
// Every rule switched off or relaxed here is listed with its reason, here and in docs/development.md ("Lint, format, unused code").
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'coverage/', '.data/', '.local/', 'test-results/'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Named outright, though recommendedTypeChecked has them: a promise a Lambda does not await is a lost write.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // Relaxed: a leading underscore marks a binding left unused on purpose, chiefly the rest-destructuring that drops
      // the table's keys from an item (`const { PK: _pk, SK: _sk, ...rest } = item`). tsc's noUnusedLocals finds the rest.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Off: an `async` function without `await` implements a Promise-returning port (a Mailer, a Store stub, an
      // operation whose siblings await); dropping `async` would turn its throws into synchronous ones.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Off outside the Lambda code, the CDK app and the CLIs: the suites, the bench, the smoke checks, the local
    // runtime and the console read untyped JSON (HTTP bodies, CloudFormation templates, SDK and engine answers)
    // as `any` on purpose, a few thousand reads that a type per shape would not make safer.
    files: ['test/**', 'bench/**', 'smoke/**', 'local/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Off in the suites and the local runtime: they save a method to restore or wrap it (process.stdout.write, an SDK
    // client's middlewareStack, a runtime's stop) or pass on functions declared in method syntax that use no `this`.
    files: ['test/**', 'local/**'],
    rules: { '@typescript-eslint/unbound-method': 'off' },
  },
  // This file itself: plain JavaScript outside every tsconfig, so no type-aware rules.
  { files: ['**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
);
