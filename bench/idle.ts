import { processCounters, readyLine, sleep, startChild, startRuntimeChild, type Child } from './processes.js';

/**
 * What an idle `npm start` costs: the runtime in a child process as
 * `npm start --in-memory` runs it (gateway, embedded engines, the webhook
 * event source long-polling, the sweeper's schedule), left alone to settle,
 * then its CPU time and wake-ups over a quiet window, read from /proc. Beside
 * it, in the same window, a bare node:http server started the same way (tsx):
 * the floor of an idle Node process on this machine.
 */
/**
 * Past V8's memory reducer: some 8 s after a process stops allocating it runs up to three full collections, 0.5 s
 * apart (`kLongDelayMs`, `kShortDelayMs`, `kMaxNumberOfGCs` in V8's src/heap/memory-reducer.cc), once after start,
 * 0.1–0.2 s of CPU here. That is start-up's cost, not an idle process's.
 */
const SETTLE_MS = Number(process.env.BENCH_IDLE_SETTLE_MS ?? 12_000);
const WINDOW_MS = Number(process.env.BENCH_IDLE_WINDOW_MS ?? 5000);
/** Goal: below 1 % of one core. */
const GOAL_CPU_PERCENT = 1;

export async function benchIdle(): Promise<string[]> {
  const children: Child[] = [];
  try {
    const runtime = await startRuntimeChild();
    children.push(runtime);
    const bare = startChild(['bench/bare-server.ts']);
    children.push(bare);
    await readyLine(bare);
    await sleep(SETTLE_MS);
    const before = [processCounters(runtime.pid), processCounters(bare.pid)];
    const started = performance.now();
    await sleep(WINDOW_MS);
    const seconds = (performance.now() - started) / 1000;
    const after = [processCounters(runtime.pid), processCounters(bare.pid)];
    if (before.some((c) => c === null) || after.some((c) => c === null)) return ['idle: needs /proc (Linux); not measured here'];
    const figures = [0, 1].map((i) => ({
      cpu: (after[i]!.cpuMs - before[i]!.cpuMs) / 10 / seconds,
      wakeups: (after[i]!.wakeups - before[i]!.wakeups) / seconds,
    }));
    const row = (name: string, f: { cpu: number; wakeups: number }) =>
      `  ${name.padEnd(28)} CPU ${f.cpu.toFixed(2).padStart(5)} % of a core   ${f.wakeups.toFixed(1).padStart(6)} wake-ups/s`;
    return [
      `Idle, ${(WINDOW_MS / 1000).toFixed(0)} s after ${(SETTLE_MS / 1000).toFixed(0)} s to settle (CPU from /proc in 10 ms ticks; wake-ups = voluntary context switches of all threads)`,
      row('npm start --in-memory', figures[0]!) + `   (goal < ${GOAL_CPU_PERCENT} %)`,
      row('baseline: bare node:http', figures[1]!),
    ];
  } finally {
    for (const child of children.reverse()) await child.stop();
  }
}
