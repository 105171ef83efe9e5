import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { receiveMenuEvent, type MenuEventInput } from '../src/index.js';

/** Bodies larger than any webhook payload are refused before they are read to the end. */
const MAX_BODY_BYTES = 64 * 1024;

function rawBody(req: IncomingMessage): Promise<Buffer | undefined> {
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

/**
 * A `node:http` receiver for the menu webhooks: the body is kept as the bytes received (never parsed before the
 * signature is checked) and handed to receiveMenuEvent, whose status is the answer. A refusal says no more than
 * its status (contract 7.4: a generic body).
 */
export function menuWebhookHandler(options: Omit<MenuEventInput, 'headers' | 'rawBody'>): RequestListener {
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const body = req.method === 'POST' ? await rawBody(req) : undefined;
    if (!body) return void res.writeHead(req.method === 'POST' ? 413 : 405).end();
    const outcome = await receiveMenuEvent({ ...options, headers: req.headers, rawBody: body });
    res.writeHead(outcome.status, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: outcome.status === 200 }));
  };
  return (req, res) => void answer(req, res);
}
