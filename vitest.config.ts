import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'clients/**/test/**/*.test.ts'],
    pool: 'forks',
    // Most suites wait on sockets, engines and the webhook time scale rather than compute: four forks on a
    // 2-core machine (vitest's default there is one) keep both cores busy (test:quick 135 s with two, 100 s with four).
    poolOptions: { forks: { maxForks: 4, minForks: 1 } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
