import { startLocalRuntime } from '../local/runtime.js';
import { DEMO_GROUP_ID } from '../local/seed.js';
import { benchAuthHeaders } from './bench-app.js';
import { percentile } from './load.js';

/**
 * An emergency stop's way out on this machine: the POST (written, then sent on the stop-command queue) → the
 * simulated device platform's receive from fauxqs, one stop at a time. The goal: the gateway has it within a second of
 * the 200 (docs/decisions/matriq.md). Then the whole loop, POST → `applied` as the customer's replay answers it, with
 * the simulated gateway's delay.
 */
const STOPS = Number(process.env.BENCH_STOPS ?? 100);
const LOCATIONS = ['nyc-midtown', 'denver-union', 'london-soho'];
const TIMEOUT_MS = 10_000;

export async function benchEmergencyStop(): Promise<string[]> {
  const received = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  const runtime = await startLocalRuntime({
    port: 0,
    dataDir: null,
    seed: true,
    logLevel: 'SILENT',
    simulatedGateway: {
      onReceived: (commandId) => {
        if (!received.has(commandId)) received.set(commandId, performance.now());
        waiting.get(commandId)?.();
      },
    },
  });
  try {
    const headers = await benchAuthHeaders(runtime, DEMO_GROUP_ID, 'Emergency-stop bench', ['matriq:read', 'matriq:ai-scheduler:stop']);
    const answered: number[] = [];
    const reached: number[] = [];
    const afterAnswer: number[] = [];
    let lost = 0;
    for (let i = 0; i < STOPS; i++) {
      const location = LOCATIONS[i % LOCATIONS.length]!;
      const t0 = performance.now();
      const reply = await fetch(`${runtime.url}/v1/${DEMO_GROUP_ID}/${location}/matriq/aiScheduler/emergency-stop`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ reason: `Bench stop ${i}` }),
      });
      const { data } = (await reply.json()) as { data: { commandId: string } };
      const ok = performance.now();
      answered.push(ok - t0);
      const at = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), TIMEOUT_MS);
        const done = () => (clearTimeout(timer), resolve(received.get(data.commandId)!));
        waiting.set(data.commandId, done);
        if (received.has(data.commandId)) done();
      });
      waiting.delete(data.commandId);
      if (at === null) lost++;
      else {
        reached.push(at - t0);
        afterAnswer.push(at - ok);
      }
    }
    // The whole loop once more, as a customer sees it: POST → the same POST with its Idempotency-Key answers `applied`.
    const stop = () =>
      fetch(`${runtime.url}/v1/${DEMO_GROUP_ID}/nyc-midtown/matriq/aiScheduler/emergency-stop`, {
        method: 'POST',
        headers: { ...headers, 'Idempotency-Key': 'bench-whole-loop' },
      }).then(async (r) => ((await r.json()) as { data: { status: string } }).data.status);
    const t0 = performance.now();
    let loopMs: number | null = null;
    for (let status = await stop(); performance.now() < t0 + TIMEOUT_MS; status = await stop()) {
      if (status === 'applied') {
        loopMs = performance.now() - t0;
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    const figures = (values: number[]) =>
      `p50 ${percentile(sorted(values), 0.5).toFixed(1)} ms, p99 ${percentile(sorted(values), 0.99).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms`;
    return [
      `${STOPS} stops, one at a time, over ${LOCATIONS.length} locations`,
      `POST → 200 (written, then sent): ${figures(answered)}`,
      `POST → received by the simulated device platform: ${figures(reached)}${lost ? `; ${lost} not received within ${TIMEOUT_MS / 1000} s` : ''}`,
      `received after the 200 by at most ${Math.max(0, ...afterAnswer).toFixed(1)} ms (goal: under 1,000 ms); ${afterAnswer.filter((ms) => ms < 0).length} of ${afterAnswer.length} before the 200 reached the client`,
      loopMs === null
        ? `POST → applied: not within ${TIMEOUT_MS / 1000} s`
        : `POST → applied, as its replay answers: ${loopMs.toFixed(0)} ms (the simulated gateway's 300 ms included)`,
    ];
  } finally {
    await runtime.stop();
  }
}
