import { defineConfig } from 'vitest/config';
import { PATIENCE_MS } from './test/support/eventually.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'clients/**/test/**/*.test.ts'],
    globalSetup: ['test/support/run-tmpdir.ts'],
    pool: 'forks',
    // Most suites wait on sockets, engines and the webhook time scale rather than compute: four forks on a
    // 2-core machine (vitest's default there is one) keep both cores busy (test:quick 135 s with two, 100 s with four).
    poolOptions: { forks: { maxForks: 4, minForks: 1 } },
    // Outer bounds only: tests wait on the states they need (test/support/eventually.ts, PATIENCE_MS = 90 s), so a busy
    // machine makes them slower, not red; a test and a hook (a stage's synth) get more than one patience.
    testTimeout: 150_000,
    hookTimeout: 300_000,
    // expect.poll waits on a state as eventually() does, not vitest's default second.
    expect: { poll: { timeout: PATIENCE_MS } },
  },
});
