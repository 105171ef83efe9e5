import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '#admin-cli/commands';
import { runCli } from '#admin-cli/run';
import { markerOf } from '#lambdas/webhooks/deliveries';
import type { LocalRuntime } from '#local/runtime';
import { runtimeFileFor } from '../fixtures/admin-cli.js';
import { startTestRuntime } from '../support/runtime.js';

/**
 * One key style in every `--json` document of the admin CLI: each command runs once (in this process, against a
 * real runtime) and every key at every depth is camelCase. The commands run are checked against the command
 * table, so a new command without a run here fails too.
 */
const CAMEL_CASE = /^[a-z][a-zA-Z0-9]*$/;
const SAMPLES = new URL('../../examples/data/', import.meta.url).pathname;

let runtime: LocalRuntime;
let dir: string;
let runtimeFile: string;
beforeAll(async () => {
  // No event source: a queued delivery stays as written, so the test can dead-letter it.
  runtime = await startTestRuntime({ deliverWebhooks: false });
  dir = mkdtempSync(join(tmpdir(), 'admin-cli-json-'));
  runtimeFile = runtimeFileFor(runtime, dir, 'runtime.json');
});
afterAll(async () => {
  await runtime?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Keys that are not camelCase, with their paths. */
function otherKeys(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => otherKeys(v, `${path}[${i}]`));
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => [
    ...(CAMEL_CASE.test(key) ? [] : [`${path}.${key}`]),
    ...otherKeys(v, `${path}.${key}`),
  ]);
}

describe('the admin CLI --json documents', () => {
  it('use camelCase keys only, in every command', async () => {
    const ran = new Set<string>();
    const found: Record<string, string[]> = {};
    const json = async (args: string[]): Promise<any> => {
      let out = '';
      let err = '';
      const code = await runCli([...args, '--runtime-file', runtimeFile, '--json'], {
        out: (t) => void (out += t),
        err: (t) => void (err += t),
        env: {},
      });
      expect(code, `${args.join(' ')}: ${err}`).toBe(0);
      const name = COMMANDS.find((c) => args.join(' ').startsWith(`${c.name} `) || args.join(' ') === c.name)!.name;
      ran.add(name);
      const document = JSON.parse(out) as unknown;
      const wrong = otherKeys(document);
      if (wrong.length) found[name] = wrong;
      return document;
    };
    const now = new Date().toISOString();
    const inbox = runtime.deps.config.webhookListenInbox!.origin;

    const { app } = await json(['apps', 'create', '--group', 'demo-group', '--scopes', 'bevq:read', '--owner-email', 'o@example.com']);
    await json(['apps', 'create-legacy', '--group', 'demo-group', '--scopes', 'locations:read']);
    await json(['apps', 'list']);
    await json(['apps', 'show', app.clientId]);
    await json(['apps', 'rotate-secret', app.clientId]);
    await json(['apps', 'legacy-report']);
    await json(['token-keys', 'list']);
    const { versions } = await json(['token-keys', 'rotate']);
    await json(['token-keys', 'revoke', String(Math.max(...versions.map((v: { version: number }) => v.version)))]);
    await json(['groups', 'list']);
    await json(['groups', 'put', '--id', 'json-group', '--name', 'JSON group']);
    await json([
      'locations',
      'put',
      '--group',
      'json-group',
      '--id',
      'json-1',
      '--name',
      'One',
      '--short-name',
      'One',
      '--timezone',
      'Europe/London',
      '--slug',
      'one',
    ]);
    await json(['locations', 'list', '--group', 'json-group']);
    await json(['venues', 'load', '--file', `${SAMPLES}venues.json`]);
    await json(['shiftq', 'load', '--group', 'smoke-group', '--location', 'smoke-venue', '--file', `${SAMPLES}shiftq.json`]);
    await json(['sports', 'load', '--file', `${SAMPLES}sports.json`]);
    await json(['matriq', 'load', '--file', `${SAMPLES}matriq.json`]);
    await json(['campaigns', 'load', '--file', `${SAMPLES}campaigns.json`]);
    const command = { groupId: 'smoke-group', locationId: 'smoke-venue', deviceId: 'tv-smoke-1', reason: 'test' };
    await runtime.store.matriq.createCommand({
      ...command,
      commandId: 'cmd_0123456789abcdef0123456789abcdef',
      requestedAt: now,
      status: 'queued',
      completedAt: null,
      clientId: app.clientId,
      requestFingerprint: 'f',
    });
    await json(['matriq', 'stop-result', '--command', 'cmd_0123456789abcdef0123456789abcdef', '--status', 'applied']);
    await json(['menus', 'publish', '--group', 'smoke-group', '--location', 'smoke-venue', '--file', `${SAMPLES}menu.json`]);
    await json(['menus', 'show', '--group', 'smoke-group', '--location', 'smoke-venue']);

    const { destination } = await json(['destinations', 'add', '--app', app.clientId, '--name', 'JSON', '--url', `${inbox}/json`]);
    const id = destination.destinationId as string;
    await json(['destinations', 'list']);
    await json(['destinations', 'edit', id, '--name', 'JSON keys']);
    await json(['destinations', 'rotate-secret', id]);
    await json(['destinations', 'disable', id]);
    await json(['destinations', 'enable', id]);
    const { deliveryId } = await json(['destinations', 'test', id, '--location', 'nyc-midtown']);
    await json(['destinations', 'show', id]);
    // The delivery dead-lettered, as the deliverer leaves one whose attempts are spent.
    const queued = (await runtime.store.deliveries.get(deliveryId))!;
    const dead = { ...queued, status: 'DEAD_LETTER' as const, deadLetterReason: 'attempts_exhausted' as const, attempts: 5 };
    expect(await runtime.store.deliveries.write(dead, queued)).not.toBeNull();
    await runtime.store.deliveries.markDeadLetter(markerOf(dead, 'attempts_exhausted'));
    await json(['dlq', 'list']);
    await json(['dlq', 'show', deliveryId]);
    await json(['deliveries', 'show', deliveryId]);
    await json(['dlq', 'redrive', deliveryId]);
    await json(['destinations', 'remove', id]);
    await runtime.store.mailSuppressions.suppress({ address: 'bounced@example.com', reason: 'bounce', at: now });
    await json(['mail', 'suppressions']);
    await json(['mail', 'unsuppress', 'bounced@example.com']);
    await json(['apps', 'revoke', app.clientId]);

    expect(found).toEqual({});
    expect([...ran].sort()).toEqual(COMMANDS.map((c) => c.name).sort());
  });
});
