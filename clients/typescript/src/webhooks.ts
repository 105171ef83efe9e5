import type { components } from './schema.js';

/** The signed payload of contract 6.3 (verifyWebhook proves its origin; checkScope its fields). */
export type WebhookEvent = components['schemas']['WebhookPayload'];

/** Node's `req.headers` (lower-case names), a plain object, or a fetch `Headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** The body exactly as received: bytes, or text only if nothing re-encoded it. */
export type RawBody = Uint8Array | ArrayBuffer | string;

export type VerifyFailure =
  | 'missing_signature'
  | 'malformed_signature'
  | 'missing_timestamp'
  | 'malformed_timestamp'
  | 'timestamp_outside_tolerance'
  | 'signature_mismatch'
  | 'malformed_payload'
  | 'event_id_mismatch';

export type VerifyResult = { ok: true; event: WebhookEvent } | { ok: false; reason: VerifyFailure };

export interface VerifyOptions {
  /** Contract 8: 300 s recommended. */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch; defaults to `Date.now`. */
  now?: () => number;
}

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;
const TIMESTAMP = /^\d{1,12}$/;
const utf8 = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

const bytesOf = (body: RawBody): Uint8Array =>
  typeof body === 'string' ? utf8.encode(body) : body instanceof Uint8Array ? body : new Uint8Array(body);

function signedInput(timestamp: string, body: Uint8Array): Uint8Array {
  const prefix = utf8.encode(`${timestamp}.`);
  const input = new Uint8Array(prefix.length + body.length);
  input.set(prefix);
  input.set(body, prefix.length);
  return input;
}

const hmacKey = (secret: string, usage: 'sign' | 'verify') =>
  crypto.subtle.importKey('raw', utf8.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);

const hexBytes = (hex: string) => Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16));

/**
 * Verifies a delivery by contract 6.4's receiver rules 1–3, over the exact raw bytes, before anything parses them:
 * the header's format (which also fixes its length), the timestamp's window, then the HMAC. The comparison is
 * WebCrypto's own HMAC verify, which compares in constant time (WebCrypto has no timingSafeEqual to call).
 */
export async function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  rawBody: RawBody,
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  const signature = header(headers, 'x-service-signature');
  const timestamp = header(headers, 'x-service-timestamp');
  if (signature === undefined) return { ok: false, reason: 'missing_signature' };
  const hex = SIGNATURE.exec(signature)?.[1];
  if (!hex) return { ok: false, reason: 'malformed_signature' };
  if (timestamp === undefined) return { ok: false, reason: 'missing_timestamp' };
  if (!TIMESTAMP.test(timestamp)) return { ok: false, reason: 'malformed_timestamp' };
  const nowSeconds = (options.now ?? Date.now)() / 1000;
  if (Math.abs(nowSeconds - Number(timestamp)) > (options.toleranceSeconds ?? 300))
    return { ok: false, reason: 'timestamp_outside_tolerance' };

  const body = bytesOf(rawBody);
  const valid = await crypto.subtle.verify('HMAC', await hmacKey(secret, 'verify'), hexBytes(hex), signedInput(timestamp, body));
  if (!valid) return { ok: false, reason: 'signature_mismatch' };

  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    return { ok: false, reason: 'malformed_payload' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, reason: 'malformed_payload' };
  // An object under a valid signature is the service's own payload (contract 6.2).
  const event = parsed as WebhookEvent;
  // The header is not signed; the payload's id is. A header that disagrees is not this event's.
  const eventId = header(headers, 'x-service-event-id');
  if (eventId !== undefined && eventId !== event.eventId) return { ok: false, reason: 'event_id_mismatch' };
  return { ok: true, event };
}

/**
 * A signed delivery as the service sends it (contract 6.2), for unit-testing a receiver. A string payload is signed
 * as the exact text given, so a test can send whitespace, escapes or key order that a JSON parser would change.
 */
export async function signTestPayload(
  secret: string,
  payload: WebhookEvent | string,
  options: { timestamp?: number } = {},
): Promise<{ headers: Record<string, string>; body: string }> {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const event = typeof payload === 'string' ? eventOf(payload) : payload;
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret, 'sign'), signedInput(timestamp, utf8.encode(body))));
  return {
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Service-Customer-API-Webhooks/1.0',
      ...(event.eventType === undefined ? {} : { 'x-service-event': event.eventType }),
      ...(event.eventId === undefined ? {} : { 'x-service-event-id': event.eventId }),
      'x-service-timestamp': timestamp,
      'x-service-signature': `sha256=${Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('')}`,
    },
    body,
  };
}

/** The event a text payload carries, for its headers; a text that is not a JSON object (a malformed test case) has none. */
function eventOf(text: string): Partial<WebhookEvent> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
}
