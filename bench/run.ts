import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import type { AddressInfo } from 'node:net';
import { APP_RATE_CEILING_PER_MINUTE } from '#data/rate-counters';
import { startLocalRuntime } from '../lib/local/runtime.js';
import { measureBundles } from './bundles.js';
import { benchKitchen } from './kitchen.js';
import { benchWebhooks } from './webhooks.js';
import { load, type LoadResult } from './load.js';
import { soak } from './soak.js';

/**
 * npm run bench: figures, never pass/fail. Each load level runs against the
 * service and against a bare node:http baseline in the same process, so the
 * ratio says what the service costs on top of the HTTP stack on this machine.
 * `--soak [--minutes N] [--rps R]` runs only the memory soak (bench/soak.ts).
 */
const LEVELS = [1, 8, 32];
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);

const fmt = (r: LoadResult) =>
  `${String(r.concurrency).padStart(3)} clients  ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50Ms.toFixed(2).padStart(7)} ms  p99 ${r.p99Ms.toFixed(2).padStart(7)} ms${r.errors ? `  ${r.errors} errors` : ''}`;

async function main() {
  const runtime = await startLocalRuntime({ port: 0, dataDir: null, seed: true, logLevel: 'SILENT' });
  let dynamoCalls = 0;
  runtime.dynamo.middlewareStack.add((next) => async (args) => {
    dynamoCalls++;
    return next(args);
  }, { step: 'initialize', name: 'benchCallCounter' });

  const baseline = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => baseline.listen(0, '127.0.0.1', resolve));
  const baselineUrl = `http://127.0.0.1:${(baseline.address() as AddressInfo).port}/`;

  try {
    const { clientId, clientSecret, groupId } = runtime.demo!;
    // A limit high enough that the benchmark measures work, not throttling.
    const app = await runtime.store.apps.get(clientId);
    await runtime.store.apps.create({ ...app!, clientId: `${clientId}-bench`, rateLimitPerMinute: APP_RATE_CEILING_PER_MINUTE }).catch(() => undefined);
    const tokenReply = await fetch(`${runtime.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: `${clientId}-bench`, client_secret: clientSecret }),
    });
    const { access_token } = (await tokenReply.json()) as { access_token: string };
    const url = `${runtime.url}/v1/${groupId}/locations`;
    const headers = { Authorization: `Bearer ${access_token}` };

    console.log(`GET /v1/{group_id}/locations on the local runtime, ${REQUESTS} requests per level (node ${process.version})`);
    await load(url, headers, 4, 200); // warm-up
    for (const level of LEVELS) {
      const before = dynamoCalls;
      const service = await load(url, headers, level, REQUESTS);
      const perRequest = (dynamoCalls - before) / service.requests;
      const bare = await load(baselineUrl, {}, level, REQUESTS);
      console.log(`  service  ${fmt(service)}  ${perRequest.toFixed(2)} DynamoDB calls/request`);
      console.log(`  baseline ${fmt(bare)}  (bare node:http)`);
      console.log(`  ratio    p50 ×${(service.p50Ms / bare.p50Ms).toFixed(1)}  throughput ×${(bare.rps / service.rps).toFixed(1)} slower`);
    }
  } finally {
    baseline.close();
    await runtime.stop();
  }

  console.log('\nLambda bundles (the stack\'s esbuild preset), cold import median of 5 fresh processes:');
  for (const b of await measureBundles()) {
    console.log(
      `  ${b.family.padEnd(12)} ${(b.bytes / 1024).toFixed(0).padStart(6)} KiB  (${(b.gzipBytes / 1024).toFixed(0)} KiB gzip)  cold import ${b.coldImportMs.toFixed(0)} ms`,
    );
  }
  for (const [title, bench] of [
    ['Kitchen endpoint (largest payload)', benchKitchen],
    ['Webhooks end to end (publish → verified delivery at a local HTTPS receiver)', benchWebhooks],
  ] as const) {
    console.log(`\n${title}:`);
    for (const line of await bench()) console.log(`  ${line}`);
  }
}

const { values: flags } = parseArgs({ options: { soak: { type: 'boolean', default: false }, minutes: { type: 'string', default: '10' }, rps: { type: 'string', default: '100' } } });
if (flags.soak) await soak(Number(flags.minutes), Number(flags.rps));
else await main();
