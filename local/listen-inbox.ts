import { readFileSync } from 'node:fs';
import { freePort } from './dynamodb-local.js';
import { keptInDataFolder } from './owner-only.js';

/**
 * The address `npm run listen` receives webhooks on. The local runtime reserves it at start (a free loopback port),
 * records it in its runtime file and accepts and delivers to that one loopback origin; every other loopback or
 * private destination stays refused. The inbox serves the test certificate for 127.0.0.1 (test/fixtures/tls, its
 * CA's key discarded), and the deliverer trusts that CA for this origin only, so no start switch is needed.
 */

const tls = (name: string) => readFileSync(new URL(`../test/fixtures/tls/${name}`, import.meta.url), 'utf8');

export const LISTEN_INBOX_TLS = { key: tls('server-key.pem'), cert: tls('server.pem'), ca: tls('ca.pem') };

export type ListenInbox = { origin: string; ca: string };

/**
 * A data folder keeps its inbox port across restarts, so a `npm run listen` left running goes on receiving (its
 * destination, in the table, still names that port); in memory, a free port each start.
 */
export async function reserveListenInbox(dataDir: string | null): Promise<ListenInbox> {
  const port = await keptInDataFolder(dataDir, 'listen-inbox-port', async () => String(await freePort()), isPort);
  return { origin: `https://127.0.0.1:${port}`, ca: LISTEN_INBOX_TLS.ca };
}

const isPort = (text: string) => /^\d{1,5}$/.test(text) && Number(text) > 0 && Number(text) < 65_536;
