import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { sampleMenu } from '#local/demo-menu';
import { adminCall, newApp, startTestRuntime } from '../support/runtime.js';
import { startMenuSync } from '#examples/menu-sync/menu-sync';
import { memoryMenuStore } from '#kit';
import { runtimeFileFor } from '../fixtures/admin-cli.js';
import { startListen, type ListenProcess } from '../fixtures/listen-process.js';
import { eventually } from '../support/eventually.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * examples/menu-sync behind `npm run listen`, against a real local runtime. The time scale stays 1 here on
 * purpose: a failed delivery's retry then comes 30–45 s later, after this test, so the receiver that was down can
 * only catch up through its reconciliation (every second in this test). The rest takes no scaled wait.
 */
let runtime: LocalRuntime;
let listen: ListenProcess;
let app: { clientId: string; clientSecret: string };
let receiver: { child: ChildProcess; output: () => string } | undefined;
const dir = mkdtempSync(join(tmpdir(), 'menu-sync-'));
const menuFile = join(dir, 'menus.json');
let port: number;

function startReceiver(reconcileEverySeconds: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/menu-sync/main.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      CUSTOMER_API_URL: runtime.url,
      CLIENT_ID: app.clientId,
      CLIENT_SECRET: app.clientSecret,
      WEBHOOK_SECRET: listen.secret,
      GROUP_ID: 'demo-group',
      MENU_FILE: menuFile,
      RECONCILE_EVERY_SECONDS: String(reconcileEverySeconds),
      PORT: String(port),
    },
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => void (output += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => void (output += c.toString('utf8')));
  receiver = { child, output: () => output };
  return until(
    () => output.includes('menu-sync listening on'),
    () => `the receiver to start:\n${output}`,
  );
}

async function until(done: () => boolean, what: () => string): Promise<void> {
  await eventually(() => (done() ? true : undefined), what);
}

/** The receiver's copies, by "group/location": revision only. */
function copies(): Record<string, string> {
  if (!existsSync(menuFile)) return {};
  const stored = JSON.parse(readFileSync(menuFile, 'utf8')) as Record<string, { revision: string }>;
  return Object.fromEntries(Object.entries(stored).map(([key, copy]) => [key, copy.revision]));
}

async function publish(locationId: string, price: number): Promise<{ revision: string; eventId: string }> {
  const { status, body } = await adminCall(runtime, 'PUT', `/menus/demo-group/${locationId}`, sampleMenu({ price }));
  expect(status).toBe(200);
  return body;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: free } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return free;
}

beforeAll(async () => {
  runtime = await startTestRuntime({ config: { webhookTimeScale: 1 } });
  app = await newApp(runtime, { scopes: ['bevq:read'], allowedLocationIds: ['nyc-midtown', 'denver-union'] });
  port = await freePort();
  const runtimeFile = runtimeFileFor(runtime, dir, 'runtime.json');
  listen = await startListen(runtimeFile, ['--app', app.clientId, '--forward-to', `http://127.0.0.1:${port}/hook`]);
});
afterAll(async () => {
  receiver?.child.kill('SIGKILL');
  await listen?.stop();
  await runtime?.stop();
});

describe('examples/menu-sync against the local runtime', () => {
  let published: Record<string, string>;

  it('keeps a copy of every menu the application may read, through the deliveries', async () => {
    await startReceiver(3_600);
    const nyc = await publish('nyc-midtown', 11);
    const denver = await publish('denver-union', 11);
    // Published, but outside the application: neither delivered nor reconciled.
    await publish('london-soho', 11);
    published = { 'demo-group/nyc-midtown': nyc.revision, 'demo-group/denver-union': denver.revision };
    // Both deliveries arrive (the start's reconciliation may copy a menu first: its delivery still comes and is logged).
    const delivered = [
      `webhook ${nyc.eventId} demo-group/nyc-midtown synced revision ${nyc.revision}`,
      `webhook ${denver.eventId} demo-group/denver-union synced revision ${denver.revision}`,
    ];
    await until(
      () => delivered.every((line) => receiver!.output().includes(line)),
      () => `the deliveries of ${JSON.stringify(published)}; the example logged ${receiver!.output()}`,
    );
    expect(copies()).toEqual(published);
  });

  it('catches up through reconciliation after being down while a delivery failed', async () => {
    receiver!.child.kill('SIGKILL');
    await once(receiver!.child, 'exit');
    const missed = await publish('nyc-midtown', 12);
    await listen.waitForLine(new RegExp(`${missed.eventId}  .*-> 502 \\(endpoint unreachable\\)$`), 'the failed delivery');

    await startReceiver(1);
    const expected = { ...published, 'demo-group/nyc-midtown': missed.revision };
    const caughtUp = `reconcile demo-group/nyc-midtown revision ${missed.revision} (changed)`;
    await until(
      () => receiver!.output().includes(caughtUp),
      () => `"${caughtUp}" in:\n${receiver!.output()}`,
    );
    expect(copies()).toEqual(expected);
    expect(receiver!.output()).not.toContain(missed.eventId);
    // The failed delivery is still waiting for its retry: the copy did not come through it.
    const { body } = await adminCall(runtime, 'GET', `/destinations/${listen.destinationId}/deliveries`);
    const delivery = body.deliveries.find((d: { eventId: string }) => d.eventId === missed.eventId);
    expect([delivery.status, delivery.attempts]).toEqual(['RETRY_PENDING', 1]);
  });

  it('names the URL and the cause when the API cannot be reached', async () => {
    const lines: string[] = [];
    const apiUrl = `http://127.0.0.1:${await freePort()}`;
    const sync = await startMenuSync({
      apiUrl,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      webhookSecret: listen.secret,
      groupId: 'demo-group',
      store: memoryMenuStore(),
      reconcileEverySeconds: 3_600,
      port: 0,
      log: (line) => lines.push(line),
    });
    try {
      await until(
        () => lines.some((l) => l.startsWith('reconcile failed')),
        () => `a failed reconciliation in ${JSON.stringify(lines)}`,
      );
      expect(lines).toContain(`reconcile failed: fetch failed (${apiUrl}: ECONNREFUSED)`);
    } finally {
      await sync.stop();
    }
  });
});
