import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Mutation runs use the unit tests only: the rooms hold pure modules, and the integration and e2e
// suites need engines and servers that a run per mutant cannot afford.
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/unit/**/*.test.ts'],
    // It runs the tool-preparation script as a child process, which fails inside Stryker's sandbox copy;
    // it covers no room's file.
    exclude: ['test/unit/prepare-tools.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
  },
});
