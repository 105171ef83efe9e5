import { EVENT_TYPES, MENU_UPDATED, WEBHOOK_HEADERS } from './events.js';

/** The OpenAPI 3.1 `webhooks` section: what a receiver gets (6.2-6.4) and should answer (7.4), the payload by its $ref. */
export function webhooksSection(payload: { $ref: string }) {
  const header = (name: string, description: string, pattern?: string) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: { type: 'string', ...(pattern ? { pattern } : {}) },
  });
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: type === MENU_UPDATED ? 'bevqMenuUpdated' : 'webhookTest',
          summary:
            type === MENU_UPDATED
              ? "A location's menu has a new published revision: re-read the resource with If-None-Match"
              : 'Send test from the administration console; changes no data',
          // The signature headers authenticate the sender, and OpenAPI has no HMAC scheme to name: no credential scheme applies.
          security: [],
          parameters: [
            header(WEBHOOK_HEADERS.event, 'Event type', `^${type.replaceAll('.', '\\.')}$`),
            header(WEBHOOK_HEADERS.eventId, 'Stable event id; deduplicate on it'),
            header(WEBHOOK_HEADERS.timestamp, 'Unix seconds, fresh on every attempt', '^[0-9]+$'),
            header(
              WEBHOOK_HEADERS.signature,
              'sha256= + hex HMAC-SHA256 of `timestamp.rawBody` with the signing secret',
              '^sha256=[0-9a-f]{64}$',
            ),
          ],
          requestBody: {
            required: true,
            content: { 'application/json; charset=utf-8': { schema: payload } },
          },
          responses: {
            '2XX': { description: 'Accepted (also for an event already processed)' },
            '401': { description: 'Signature verification failed; not retried' },
            '5XX': { description: 'Retried with backoff (as are 408, 425, 429, timeouts and network errors)' },
          },
        },
      },
    ]),
  );
}
