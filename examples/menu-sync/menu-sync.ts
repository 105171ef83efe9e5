import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
// A receiver of your own imports '@customer-api/kit'; this one uses the kit's source in this repository.
import {
  createCustomerApiClient,
  memoryDedupe,
  receiveMenuEvent,
  reconcileMenus,
  type MenuStore,
} from '../../clients/typescript/src/index.js';

export type MenuSyncOptions = {
  /** The API's base URL, e.g. http://localhost:3000. */
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  /** The destination's signing secret. */
  webhookSecret: string;
  groupId: string;
  store: MenuStore;
  /** Rule 6's scheduled fallback: every reachable menu is re-read (If-None-Match) this often, and once at start. */
  reconcileEverySeconds: number;
  port: number;
  log: (line: string) => void;
};

/** Bodies larger than any webhook payload are refused before they are read to the end. */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * Keeps a copy of every menu the application may read: each `bevq.menu.updated` delivery re-reads its location's
 * menu, and a reconciliation over the whole group catches what deliveries missed (the receiver was down, a
 * delivery was dead-lettered). Both go through the kit's `syncMenu`, so an unchanged menu costs one 304.
 */
export async function startMenuSync(options: MenuSyncOptions): Promise<{ url: string; stop(): Promise<void> }> {
  const { groupId, store, log } = options;
  const client = createCustomerApiClient({ baseUrl: options.apiUrl, clientId: options.clientId, clientSecret: options.clientSecret });
  // Forgotten on restart: a delivery seen again then costs one 304, nothing more.
  const dedupe = memoryDedupe();

  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    if (!body) return void res.writeHead(req.method === 'POST' ? 413 : 405).end();
    const outcome = await receiveMenuEvent({
      secret: options.webhookSecret,
      headers: req.headers,
      rawBody: body,
      scope: { groupId },
      dedupe,
      client,
      store,
    });
    const where = 'event' in outcome ? `${outcome.event.eventId} ${outcome.event.groupId}/${outcome.event.locationId}` : '-';
    const revision =
      outcome.outcome === 'synced' ? ` revision ${outcome.sync.copy.revision}${outcome.sync.changed ? ' (changed)' : ''}` : '';
    log(`webhook ${where} ${outcome.outcome}${revision}`);
    res.writeHead(outcome.status).end();
  };
  const server = createServer((req, res) => void answer(req, res));
  await new Promise<void>((resolve) => server.listen(options.port, '127.0.0.1', resolve));

  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const reconcile = async () => {
    try {
      for (const { locationId, changed } of await reconcileMenus(client, groupId, store)) {
        if (changed) log(`reconcile ${groupId}/${locationId} revision ${(await store.get(groupId, locationId))?.revision} (changed)`);
      }
    } catch (err) {
      // The next round tries again; the copies stay as they are meanwhile.
      log(`reconcile failed: ${failure(err, options.apiUrl)}`);
    }
    // One round at a time: the next is planned when this one ends.
    if (!stopped) timer = setTimeout(() => void reconcile(), options.reconcileEverySeconds * 1000);
  };
  void reconcile();

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** What went wrong and where: fetch's own message ("fetch failed") names neither the URL nor the cause. */
function failure(err: unknown, apiUrl: string): string {
  const { message, cause } = err as Error & { cause?: { code?: string; message?: string } };
  return `${message} (${apiUrl}${cause ? `: ${cause.code ?? cause.message}` : ''})`;
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return resolve(undefined);
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
