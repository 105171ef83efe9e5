import { appendFileSync } from 'node:fs';

/**
 * Preloaded into a process the soak watches (`node --expose-gc --import ./bench/memory-probe.ts …`):
 * appends one JSON line of process.memoryUsage() to MEMORY_PROBE_FILE every
 * MEMORY_PROBE_MS, so RSS and heap are read from inside, per process. Every
 * sixth sample also runs a full collection (with --expose-gc) and records the
 * live heap after it: a leak shows as a rising floor, which the collector's
 * sawtooth in heapUsed would hide.
 */
const file = process.env.MEMORY_PROBE_FILE;
if (file) {
  const every = Number(process.env.MEMORY_PROBE_MS ?? 5000);
  const gc = (globalThis as { gc?: () => void }).gc;
  let n = 0;
  const sample = () => {
    const usage = process.memoryUsage();
    let liveHeap: number | undefined;
    if (gc && n++ % 6 === 0) {
      gc();
      liveHeap = process.memoryUsage().heapUsed;
    }
    appendFileSync(file, `${JSON.stringify({ t: Date.now(), ...usage, liveHeap })}\n`);
  };
  sample();
  setInterval(sample, every).unref();
}
