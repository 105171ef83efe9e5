import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../src/index.js';

/**
 * X-Service-Timestamp is Unix time in seconds as a decimal string (contract 6.2), and the receiver checks the
 * format before anything else (6.4 receiver rules 2 and 3). A timestamp of another shape is refused even when
 * the signature over it is right: otherwise a value that is no number at all escapes the time window.
 */
const SECRET = 'whsec-test-secret';
const BODY = '{"eventId":"evt-1","eventType":"customer_api.webhook.test"}';
const NOW = 1_700_000_000;
/** Computed here with node:crypto, apart from the code under test. */
const signatureOver = (timestamp: string) => `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${BODY}`).digest('hex')}`;
const verified = async (timestamp: string, signature: string) =>
  (await verifyWebhook(SECRET, { 'x-service-timestamp': timestamp, 'x-service-signature': signature }, BODY, { now: () => NOW * 1000 })).ok;

describe('verifyWebhook: the timestamp is a decimal string of seconds', () => {
  it('accepts the well-formed timestamp it is compared with (the control)', async () => {
    expect(await verified(String(NOW), signatureOver(String(NOW)))).toBe(true);
  });

  it.each([
    ['trailing text', `${NOW}x`],
    ['leading text', `x${NOW}`],
    ['a sign', `+${NOW}`],
    ['a fraction', `${NOW}.5`],
    ['surrounding space', ` ${NOW} `],
    ['an exponent', '17e8'],
    ['more than twelve digits', `000${NOW}`],
  ])('refuses %s even with a signature computed over it', async (_, timestamp) => {
    expect(await verified(timestamp, signatureOver(timestamp))).toBe(false);
  });

  it('refuses an empty timestamp or signature header', async () => {
    expect(await verified('', signatureOver(''))).toBe(false);
    expect(await verified(String(NOW), '')).toBe(false);
  });
});
