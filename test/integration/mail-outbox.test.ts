import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailKeys } from '#data/mail-outbox';
import type { LocalRuntime } from '#local/runtime';
import { ENGINE_NAME, manualClock, scanTable, startTestRuntime } from '../support/runtime.js';

/** Owner mail waits in eight index partitions, never one written by every application. */
const clock = manualClock();
let runtime: LocalRuntime;
const MAIL = { to: 'owner@tenant.example', subject: 'Customer API: rate limit', text: 'over the limit' };

beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
});
afterAll(async () => {
  await runtime?.stop();
});

describe(`owner mail outbox (${ENGINE_NAME})`, () => {
  it('spreads pending mail over its shards; a sweep reads a bounded page of each', async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `rate-limit#app_${i}#2026-11-22T12:00#warning`);
    for (const key of keys) await runtime.store.mailOutbox.queue(key, MAIL, clock.now());
    const partitions = new Set((await scanTable(runtime)).filter((i) => String(i.PK).startsWith('MAIL#')).map((i) => String(i.GSI1PK)));
    expect(partitions.size).toBeGreaterThan(4);
    expect([...partitions].every((pk) => mailKeys.pendingPartitions().includes(pk))).toBe(true);

    const all = await runtime.store.mailOutbox.pending(100);
    expect(all.map((m) => m.key).sort()).toEqual([...keys].sort());
    // One mail a partition: as many as partitions hold mail, never all of them.
    expect(await runtime.store.mailOutbox.pending(1)).toHaveLength(partitions.size);

    for (const { key } of all) await runtime.store.mailOutbox.done(key);
    expect(await runtime.store.mailOutbox.pending(100)).toEqual([]);
  });
});
