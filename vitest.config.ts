import { defineConfig } from 'vitest/config';
import { PATIENCE_MS } from './test/support/eventually.js';

/** The suites that touch DynamoDB: they run on both engines. */
const ENGINE_SUITES = ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/support/run-tmpdir.ts', 'test/support/entry-bundles.ts'],
    setupFiles: ['test/support/yield-between-tests.ts'],
    pool: 'forks',
    // Most suites wait on sockets, engines and the webhook time scale rather than compute: six forks on a 2-core
    // machine (vitest's default there is one) keep both cores busy while one engine's suites wait.
    // Each fork runs file after file with the modules it has loaded (a fresh fork per file spent a quarter of the run's
    // CPU loading the same graph again): every suite stops what it starts and restores what it changes. All six forks
    // live for the whole run: with fewer kept, tinypool ended an idle fork that still had files queued
    // ("Terminating worker thread"). One engine's project runs after the other's.
    isolate: false,
    poolOptions: { forks: { maxForks: 6, minForks: 6 } },
    // Outer bounds only: tests wait on the states they need (test/support/eventually.ts, PATIENCE_MS = 180 s), so a busy
    // machine makes them slower, not red; a test and a hook (a stage's synth) get more than one patience.
    testTimeout: 2 * PATIENCE_MS,
    hookTimeout: 3 * PATIENCE_MS,
    // expect.poll waits on a state as long as eventually() does, not vitest's default second, and asks every 250 ms:
    // its default 50 ms made the long waits (a retry's backoff) thousands of engine reads.
    expect: { poll: { timeout: PATIENCE_MS, interval: 250 } },
    // Both engines in one run, sharing the forks: dynalite (in-process) for every suite, and AWS's own DynamoDB
    // Local for the suites that touch DynamoDB. `--project dynalite` is the development loop.
    projects: [
      { extends: true, test: { name: 'dynalite', include: ['test/**/*.test.ts', 'clients/**/test/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'dynamodb-local',
          include: ENGINE_SUITES,
          globalSetup: ['test/support/dynamodb-local-engine.ts'],
          setupFiles: ['test/support/engine-env.ts'],
        },
      },
    ],
  },
});
