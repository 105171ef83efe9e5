import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sign, verify } from '#domain/signature';

describe('sign', () => {
  it('is sha256= and lowercase hex HMAC-SHA256 of timestamp.rawBody', () => {
    const body = '{"eventId":"evt_1","price":"€5"}';
    const expected = createHmac('sha256', 'secret').update(`1700000000.${body}`, 'utf8').digest('hex');
    expect(sign('secret', '1700000000', body)).toBe(`sha256=${expected}`);
    expect(sign('secret', '1700000000', body)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });
  it('changes with the secret, the timestamp and any byte of the body', () => {
    const base = sign('s', '1', '{}');
    expect(sign('t', '1', '{}')).not.toBe(base);
    expect(sign('s', '2', '{}')).not.toBe(base);
    expect(sign('s', '1', '{ }')).not.toBe(base);
  });
});

describe('verify (the receiver side)', () => {
  const body = '{"a":1}';
  const ts = '1700000000';
  it('accepts a fresh, correct signature', () => {
    expect(verify('k', { timestamp: ts, signature: sign('k', ts, body) }, body, 1_700_000_100)).toBe(true);
  });
  it('rejects wrong secrets, stale timestamps, malformed headers and altered bodies', () => {
    expect(verify('other', { timestamp: ts, signature: sign('k', ts, body) }, body, 1_700_000_000)).toBe(false);
    expect(verify('k', { timestamp: ts, signature: sign('k', ts, body) }, body, 1_700_000_301)).toBe(false);
    expect(verify('k', { timestamp: ts, signature: sign('k', ts, body).toUpperCase() }, body, 1_700_000_000)).toBe(false);
    expect(verify('k', { timestamp: ts, signature: sign('k', ts, body).slice(7) }, body, 1_700_000_000)).toBe(false);
    expect(verify('k', { timestamp: undefined, signature: sign('k', ts, body) }, body, 1_700_000_000)).toBe(false);
    expect(verify('k', { timestamp: ts, signature: sign('k', ts, body) }, '{"a":2}', 1_700_000_000)).toBe(false);
  });
});
