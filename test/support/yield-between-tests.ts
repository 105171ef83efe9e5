import { beforeEach } from 'vitest';

/**
 * A turn of the event loop before every test. vitest runs hooks and tests back to back on promises, so synchronous
 * work (a stage's synthesis in one beforeAll, the next in another) adds up to one block; a worker blocked past 60 s
 * after a call to vitest fails the run with "Timeout calling onTaskUpdate". The turn lets the answer in between.
 */
beforeEach(() => new Promise<void>((resolve) => setImmediate(resolve)));
