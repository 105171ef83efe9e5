import { createHmac } from 'node:crypto';
import { safeEqual } from './crypto.js';

/**
 * The webhook signature of contract 6.4: HMAC-SHA256 keyed with the
 * destination's signing secret over `timestamp + "." + rawBody` (UTF-8),
 * lowercase hex, prefixed `sha256=`.
 */
export function sign(secret: string, timestamp: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex')}`;
}

const SIGNATURE = /^sha256=[0-9a-f]{64}$/;

/** What a receiver does (6.4 receiver rules 1-3); used by tests and documented for customers. */
export function verify(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  rawBody: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const { timestamp, signature } = headers;
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || !signature || !SIGNATURE.test(signature)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return false;
  return safeEqual(sign(secret, timestamp, rawBody), signature);
}
