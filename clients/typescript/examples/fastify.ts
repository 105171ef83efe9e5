import type { FastifyPluginAsync } from 'fastify';
import { receiveMenuEvent, type MenuEventInput } from '../src/index.js';

/** Bodies larger than any webhook payload are refused (413) before they are read to the end. */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * A Fastify plugin receiving the menu webhooks at POST /hooks/menu. Inside the plugin's scope only, JSON bodies
 * arrive as the Buffer received (`parseAs: 'buffer'`, never parsed), so the signature is checked over the exact
 * bytes; the rest of the application keeps Fastify's JSON parser. Register it with `app.register(menuWebhooks(options))`.
 */
export function menuWebhooks(options: Omit<MenuEventInput, 'headers' | 'rawBody'>): FastifyPluginAsync {
  return async (hooks) => {
    hooks.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (_req, body, done) =>
      done(null, body),
    );
    hooks.post('/hooks/menu', async (req, reply) => {
      // A POST without a body or content type reaches no parser: there is nothing to verify.
      if (!Buffer.isBuffer(req.body)) return reply.code(415).send({ ok: false });
      const outcome = await receiveMenuEvent({ ...options, headers: req.headers, rawBody: req.body });
      // A refusal says no more than its status (contract 7.4: a generic body).
      return reply.code(outcome.status).send({ ok: outcome.status === 200 });
    });
  };
}
