import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { addDestination } from '../lambdas/admin/destinations.js';
import { publishMenu } from '../lambdas/admin/menus.js';
import { createApp } from '../lambdas/admin/apps.js';
import { startLocalRuntime } from '../lib/local/runtime.js';
import { sampleMenu } from '../lib/local/demo-menu.js';
import { controlledResolver, startReceiver } from '../test/fixtures/webhook-receiver.js';

/**
 * End-to-end webhook throughput and latency on this machine: menu publishes
 * → outbox → SQS (fauxqs) → local poller → deliverer → HTTPS receiver on
 * loopback that verifies every signature. Bounded: a fixed number of
 * publishes and a deadline. Runs in a child process so the receiver's test
 * CA can be trusted the standard way (NODE_EXTRA_CA_CERTS).
 */

const LOCATIONS = ['nyc-midtown', 'denver-union', 'london-soho', 'sydney-harbour'];
const REVISIONS_PER_LOCATION = Number(process.env.BENCH_WEBHOOK_REVISIONS ?? 40);
const DESTINATIONS = 2;
const DEADLINE_MS = 90_000;
const ROOT = fileURLToPath(new URL('..', import.meta.url));

type Figures = { publishes: number; expected: number; verified: number; unverified: number; seconds: number; p50: number; p99: number };

export async function benchWebhooks(): Promise<string[]> {
  const figures = await new Promise<Figures>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'bench/webhooks.ts'],
      {
        cwd: ROOT,
        timeout: DEADLINE_MS + 30_000,
        env: { ...process.env, BENCH_WEBHOOKS_CHILD: '1', NODE_EXTRA_CA_CERTS: 'test/fixtures/tls/ca.pem', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`webhook benchmark failed: ${stderr.trim().split('\n').at(-1) ?? err.message}`));
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as Figures);
      },
    );
  });
  return [
    `webhooks: ${figures.publishes} menu publishes × ${DESTINATIONS} destinations → ${figures.verified}/${figures.expected} verified deliveries` +
      `${figures.unverified ? ` (${figures.unverified} failed verification)` : ''} in ${figures.seconds.toFixed(2)} s`,
    `  throughput ${(figures.verified / figures.seconds).toFixed(1)} deliveries/s; publish→delivery p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms`,
  ];
}

async function measure(): Promise<Figures> {
  const runtime = await startLocalRuntime({
    port: 0,
    dataDir: null,
    seed: true,
    logLevel: 'SILENT',
    resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
    config: { webhookAllowLoopback: true },
  });
  const secrets: string[] = [];
  const receivers = await Promise.all(
    Array.from({ length: DESTINATIONS }, (_, i) => startReceiver({ secret: () => secrets[i]! })),
  );
  try {
    const { app } = await createApp(runtime.store, { groupId: 'demo-group', name: 'Bench', scopes: ['bevq:read'] }, Date.now());
    for (const [i, receiver] of receivers.entries()) {
      secrets[i] = (await addDestination(runtime.deps, { clientId: app.clientId, name: `bench-${i}`, url: receiver.url })).signingSecret;
    }
    const publishedAt = new Map<string, number>();
    const start = Date.now();
    // One publisher per location (publishes of one location are serialised by the menu's conditional write).
    await Promise.all(
      LOCATIONS.map(async (locationId) => {
        for (let r = 0; r < REVISIONS_PER_LOCATION; r++) {
          const at = Date.now();
          const result = await publishMenu(runtime.deps, { groupId: 'demo-group', locationId, menu: sampleMenu({ price: 100 + r }) });
          publishedAt.set(result.eventId!, at);
        }
      }),
    );
    const publishes = LOCATIONS.length * REVISIONS_PER_LOCATION;
    const expected = publishes * DESTINATIONS;
    const deadline = start + DEADLINE_MS;
    const total = () => receivers.reduce((n, r) => n + r.received.length, 0);
    while (total() < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const all = receivers.flatMap((r) => r.received);
    const latencies = all
      .map((r) => r.at - (publishedAt.get(r.body?.eventId) ?? r.at))
      .sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
    const last = Math.max(...all.map((r) => r.at), start + 1);
    return {
      publishes,
      expected,
      verified: all.filter((r) => r.verified).length,
      unverified: all.filter((r) => !r.verified).length,
      seconds: (last - start) / 1000,
      p50: pct(50),
      p99: pct(99),
    };
  } finally {
    for (const r of receivers) await r.stop();
    await runtime.stop();
  }
}

if (process.env.BENCH_WEBHOOKS_CHILD === '1') {
  process.stdout.write(`${JSON.stringify(await measure())}\n`);
} else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const line of await benchWebhooks()) console.log(line);
}
