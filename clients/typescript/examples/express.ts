import express, { type Express } from 'express';
import { receiveMenuEvent, type MenuEventInput } from '../src/index.js';

/** Bodies larger than any webhook payload are refused (413) before they are read to the end. */
const MAX_BODY = '64kb';

/**
 * An Express app receiving the menu webhooks at POST /hooks/menu. `express.raw` on this route keeps `req.body` the
 * Buffer received, so the signature is checked over the exact bytes. The route is registered before the app-wide
 * `express.json()`: a JSON parser that ran first would consume the body and hand over a re-serialised object.
 */
export function menuWebhookApp(options: Omit<MenuEventInput, 'headers' | 'rawBody'>): Express {
  const app = express();
  app.post('/hooks/menu', express.raw({ type: 'application/json', limit: MAX_BODY }), async (req, res) => {
    // express.raw leaves the body unread (not a Buffer) when the content type is not JSON.
    if (!Buffer.isBuffer(req.body)) return void res.status(415).json({ ok: false });
    const outcome = await receiveMenuEvent({ ...options, headers: req.headers, rawBody: req.body });
    // A refusal says no more than its status (contract 7.4: a generic body).
    res.status(outcome.status).json({ ok: outcome.status === 200 });
  });
  // The application's other routes parse JSON as usual.
  app.use(express.json());
  return app;
}
