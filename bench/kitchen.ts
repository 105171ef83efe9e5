import { Agent, request } from 'node:http';
import { benchAuthHeaders } from './bench-app.js';
import { loadShiftq } from '#lambdas/producers/loads/shiftq';
import { activeBusinessDate, addDays, formatCompactDate, parseCompactDate } from '#contract/business-date';
import { demoKitchenDay } from '../ingest/shiftq-demo-data.js';
import { startLocalRuntime } from '../local/runtime.js';
import { median, percentile } from './load.js';

/**
 * Kitchen endpoint figures: a large kitchen day (raw tickets, averages computed
 * on read) served over real HTTP by the local runtime. Sequential requests,
 * bounded in number, so the figures are per-request latency, not throughput.
 */
const TICKETS = Number(process.env.BENCH_KITCHEN_TICKETS ?? 4000);
const REQUESTS = Number(process.env.BENCH_KITCHEN_REQUESTS ?? 200);
const GROUP = 'demo-group';
const LOCATION = 'nyc-midtown';

function get(url: string, headers: Record<string, string>, agent: Agent): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
    });
    req.on('error', reject);
    req.end();
  });
}

export async function benchKitchen(): Promise<string[]> {
  const runtime = await startLocalRuntime({ port: 0, dataDir: null, seed: true, logLevel: 'SILENT' });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const now = runtime.deps.clock.now();
    const location = (await runtime.store.locations.get(GROUP, LOCATION))!;
    const today = activeBusinessDate(location.timezone, now);
    const yesterday = formatCompactDate(addDays(parseCompactDate(today)!, -1));
    // Yesterday is a whole day, so all of its tickets are spread over 24 hours; today is the live snapshot.
    await loadShiftq(
      runtime.store,
      {
        groupId: GROUP,
        locationId: LOCATION,
        entries: [
          { kind: 'kitchen', businessDate: yesterday, data: demoKitchenDay(location.timezone, yesterday, TICKETS, now, 7) },
          { kind: 'kitchen', businessDate: today, data: demoKitchenDay(location.timezone, today, TICKETS, now, 8) },
        ],
      },
      now,
    );
    const headers = await benchAuthHeaders(runtime, GROUP, 'Kitchen bench', ['shiftq:read']);
    const base = `${runtime.url}/v1/${GROUP}/${LOCATION}/shiftq/kitchen`;

    const lines = [`GET …/shiftq/kitchen, ${TICKETS} tickets per business day, ${REQUESTS} sequential requests (node ${process.version})`];
    for (const [label, url] of [
      ['current date     ', base],
      ['requested earlier', `${base}?businessDate=${yesterday}`],
    ] as const) {
      for (let i = 0; i < 10; i++) await get(url, headers, agent); // warm-up
      const latencies: number[] = [];
      let bytes = 0;
      let errors = 0;
      for (let i = 0; i < REQUESTS; i++) {
        const t0 = performance.now();
        const reply = await get(url, headers, agent);
        latencies.push(performance.now() - t0);
        bytes = reply.bytes;
        if (reply.status !== 200) errors++;
      }
      latencies.sort((a, b) => a - b);
      lines.push(
        `  ${label}  median ${median(latencies).toFixed(2).padStart(7)} ms  p99 ${percentile(latencies, 0.99).toFixed(2).padStart(7)} ms  ` +
          `response ${(bytes / 1024).toFixed(0)} KiB${errors ? `  ${errors} errors` : ''}`,
      );
    }
    return lines;
  } finally {
    agent.destroy();
    await runtime.stop();
  }
}
