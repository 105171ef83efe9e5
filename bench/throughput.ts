import { APP_RATE_CEILING_PER_MINUTE } from '#data/rate-counters';
import { load, merge, type LoadResult } from './load.js';
import { benchToken, readyLine, startChild, startRuntimeChild, type Child } from './processes.js';

/**
 * GET /v1/{group_id}/locations at 1, 8 and 32 clients against `npm start`
 * (a child process: gateway, handlers and the embedded engines in one
 * process, logs off), beside two baselines, each a child process of its own
 * measured in the same run, one after the other:
 *   - GetItem: bare node:http doing one document-client GetItem against the
 *     same embedded engines in its own process (bench/getitem-server.ts),
 *     the fair floor for a request that needs the table;
 *   - bare: node:http answering a fixed body (bench/bare-server.ts), the
 *     HTTP stack alone;
 *   - calls: the same server making exactly the route's three DynamoDB calls
 *     (CALLS=locations), the ceiling of any service that makes them: the
 *     service's ratio to GetItem can never exceed this one's.
 * The load generator runs in this process, so each server has a core to itself.
 * Each level alternates the four in ROUNDS short runs (service, GetItem,
 * bare, calls, then again), so a neighbour's burst on a shared machine falls
 * on all of them rather than on one. The figures pool the rounds; a ratio is
 * also taken round by round, of runs seconds apart, and its median printed:
 * a burst that falls on one run moves one round's ratio, not the figure.
 */
const LEVELS = [1, 8, 32];
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2400);
const ROUNDS = 6;
/**
 * The goal at 8 clients: 0.8 of what the route's own calls alone allow. (Half the GetItem baseline's rate, the goal
 * before, is out of any service's reach that makes these calls: the calls alone run below it.)
 */
const GOAL_AT = 8;
const GOAL_OF_CEILING = 0.8;

/** The median of the rounds' ratios of a to b (the rounds in step). */
function pairedRatio(a: LoadResult[], b: LoadResult[]): number {
  const ratios = a.map((run, i) => run.rps / b[i]!.rps).sort((x, y) => x - y);
  const mid = ratios.length / 2;
  return ratios.length % 2 ? ratios[Math.floor(mid)]! : (ratios[mid - 1]! + ratios[mid]!) / 2;
}

const fmt = (r: LoadResult) =>
  `${String(r.concurrency).padStart(3)} clients  ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50Ms.toFixed(2).padStart(7)} ms  p99 ${r.p99Ms.toFixed(2).padStart(7)} ms${r.errors ? `  ${r.errors} errors` : ''}`;

export async function benchThroughput(): Promise<string[]> {
  const children: Child[] = [];
  try {
    const runtime = await startRuntimeChild();
    children.push(runtime);
    const getItem = startChild(['bench/getitem-server.ts']);
    children.push(getItem);
    const bare = startChild(['bench/bare-server.ts']);
    children.push(bare);
    const calls = startChild(['bench/getitem-server.ts'], { CALLS: 'locations' });
    children.push(calls);
    const { url: getItemUrl } = await readyLine<{ url: string }>(getItem);
    const { url: bareUrl } = await readyLine<{ url: string }>(bare);
    const { url: callsUrl } = await readyLine<{ url: string }>(calls);

    const token = await benchToken(runtime, APP_RATE_CEILING_PER_MINUTE);
    const url = `${runtime.url}/v1/${runtime.groupId}/locations`;
    const headers = { Authorization: `Bearer ${token}` };

    const lines = [
      `GET /v1/{group_id}/locations, npm start in a child process (LOG_LEVEL=SILENT), ${REQUESTS} requests per level in ${ROUNDS} alternating rounds (node ${process.version})`,
      '  baselines, each a child process too: GetItem = node:http + one document-client GetItem on the same embedded engines; bare = node:http alone;',
      "  calls = node:http + the route's own DynamoDB calls (credential and application, locations page, and the rate counter's claim when the lease is spent), nothing else",
    ];
    // Warm-up: JIT, connection pools, the runtime's caches.
    await load(url, headers, 4, 300);
    await load(getItemUrl, {}, 4, 300);
    await load(bareUrl, {}, 4, 300);
    await load(callsUrl, {}, 4, 300);
    for (const level of LEVELS) {
      const runs: [LoadResult[], LoadResult[], LoadResult[], LoadResult[]] = [[], [], [], []];
      for (let round = 0; round < ROUNDS; round++) {
        // The service beside its ceiling, then the other baselines: each pair a second or two apart.
        runs[0].push(await load(url, headers, level, REQUESTS / ROUNDS));
        runs[3].push(await load(callsUrl, {}, level, REQUESTS / ROUNDS));
        runs[1].push(await load(getItemUrl, {}, level, REQUESTS / ROUNDS));
        runs[2].push(await load(bareUrl, {}, level, REQUESTS / ROUNDS));
      }
      const [service, floor, http, own] = runs.map(merge) as [LoadResult, LoadResult, LoadResult, LoadResult];
      const ratio = service.rps / floor.rps;
      const ofCeiling = `×${(service.rps / own.rps).toFixed(2)} pooled, ×${pairedRatio(runs[0], runs[3]).toFixed(2)} the median of ${ROUNDS} paired rounds`;
      lines.push(
        `  service  ${fmt(service)}`,
        `  GetItem  ${fmt(floor)}`,
        `  bare     ${fmt(http)}`,
        `  calls    ${fmt(own)}`,
        `  service ÷ GetItem: throughput ×${ratio.toFixed(2)}` +
          `, p50 ×${(service.p50Ms / floor.p50Ms).toFixed(1)}; service ÷ bare: throughput ×${(service.rps / http.rps).toFixed(3)}`,
        `  calls ÷ GetItem: throughput ×${(own.rps / floor.rps).toFixed(2)} (the ceiling for the service's ratio); service ÷ calls: ${ofCeiling}${level === GOAL_AT ? ` (goal ≥ ×${GOAL_OF_CEILING})` : ''}`,
      );
    }
    return lines;
  } finally {
    for (const child of children.reverse()) await child.stop();
  }
}
