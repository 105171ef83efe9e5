import { appendFileSync } from 'node:fs';

/**
 * Preloaded into a process the soak watches (`node --import ./bench/memory-probe.ts …`):
 * appends one JSON line of process.memoryUsage() to MEMORY_PROBE_FILE every
 * MEMORY_PROBE_MS, so RSS and heap are read from inside, per process.
 */
const file = process.env.MEMORY_PROBE_FILE;
if (file) {
  const every = Number(process.env.MEMORY_PROBE_MS ?? 5000);
  const sample = () => appendFileSync(file, `${JSON.stringify({ t: Date.now(), ...process.memoryUsage() })}\n`);
  sample();
  setInterval(sample, every).unref();
}
