import { readFileSync } from 'node:fs';
import { freePort } from './dynamodb-local.js';

/**
 * The address `npm run listen` receives webhooks on. The local runtime reserves it at start (a free loopback port),
 * records it in its runtime file and accepts and delivers to that one loopback origin; every other loopback or
 * private destination stays refused. The inbox serves the test certificate for 127.0.0.1 (test/fixtures/tls, its
 * CA's key discarded), and the deliverer trusts that CA for this origin only, so no start switch is needed.
 */

const tls = (name: string) => readFileSync(new URL(`../test/fixtures/tls/${name}`, import.meta.url), 'utf8');

export const LISTEN_INBOX_TLS = { key: tls('server-key.pem'), cert: tls('server.pem'), ca: tls('ca.pem') };

export type ListenInbox = { origin: string; ca: string };

export async function reserveListenInbox(): Promise<ListenInbox> {
  return { origin: `https://127.0.0.1:${await freePort()}`, ca: LISTEN_INBOX_TLS.ca };
}
