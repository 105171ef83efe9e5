import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '#platform/config';
import { edgeOnly, forgetOriginSecret, fromEdge, ORIGIN_VERIFY_HEADER, originOf, VIEWER_ADDRESS_HEADER } from '#platform/http';

const SECRET = 'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bD1fH3kM5nP7rS9uW1yA3';

/** A payload 1.0 event with these headers, as API Gateway hands it over (the client's casing kept). */
function event(headers: Record<string, string>, sourceIp = '130.176.12.34'): APIGatewayProxyEvent {
  const multiValueHeaders = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]]));
  return { headers, multiValueHeaders, requestContext: { identity: { sourceIp } } } as unknown as APIGatewayProxyEvent;
}

describe('the origin check (platform/http.ts, originOf)', () => {
  const on = { originSecret: SECRET };
  const off = { originSecret: '' };

  it('reads ORIGIN_SECRET from the environment; empty means no check', () => {
    expect(configFromEnv({ ORIGIN_SECRET: SECRET }).originSecret).toBe(SECRET);
    expect(configFromEnv({}).originSecret).toBe('');
    expect(edgeOnly(configFromEnv({}))).toBe(false);
    expect(edgeOnly(configFromEnv({ ORIGIN_SECRET: SECRET }))).toBe(true);
  });

  it("knows the edge by the exact secret, whatever the header name's casing", () => {
    expect(fromEdge(event({ [ORIGIN_VERIFY_HEADER]: SECRET }), on)).toBe(true);
    expect(fromEdge(event({ 'X-Origin-Verify': SECRET }), on)).toBe(true);
    for (const wrong of ['', 'x', SECRET.slice(1), `${SECRET}x`, SECRET.toLowerCase(), ` ${SECRET}`]) {
      expect(fromEdge(event({ [ORIGIN_VERIFY_HEADER]: wrong }), on), JSON.stringify(wrong)).toBe(false);
    }
    expect(fromEdge(event({}), on)).toBe(false);
    // No secret configured: nothing is "from the edge", whatever is sent (an empty header never matches an empty secret).
    expect(fromEdge(event({ [ORIGIN_VERIFY_HEADER]: '' }), off)).toBe(false);
    expect(fromEdge(event({ [ORIGIN_VERIFY_HEADER]: SECRET }), off)).toBe(false);
  });

  it("believes x-viewer-address only from the edge, else the connection's source address", () => {
    const spoofed = { [VIEWER_ADDRESS_HEADER]: '203.0.113.7' };
    expect(originOf(event({ ...spoofed, [ORIGIN_VERIFY_HEADER]: SECRET }), on).ip).toBe('203.0.113.7');
    expect(originOf(event({ ...spoofed, [ORIGIN_VERIFY_HEADER]: 'guess' }), on).ip).toBe('130.176.12.34');
    expect(originOf(event(spoofed), on).ip).toBe('130.176.12.34');
    // Without an edge the header is anyone's to send, so it is never read.
    expect(originOf(event({ ...spoofed, [ORIGIN_VERIFY_HEADER]: SECRET }), off).ip).toBe('130.176.12.34');
    // From the edge without the function's header (it always sets one): the source address.
    expect(originOf(event({ [ORIGIN_VERIFY_HEADER]: SECRET }), on).ip).toBe('130.176.12.34');
  });

  it('forgets the secret header in both header maps, in any casing, and nothing else', () => {
    const e = event({ 'X-Origin-Verify': SECRET, Authorization: 'Bearer t', [VIEWER_ADDRESS_HEADER]: '203.0.113.7' });
    forgetOriginSecret(e);
    expect(e.headers).toEqual({ Authorization: 'Bearer t', [VIEWER_ADDRESS_HEADER]: '203.0.113.7' });
    expect(e.multiValueHeaders).toEqual({ Authorization: ['Bearer t'], [VIEWER_ADDRESS_HEADER]: ['203.0.113.7'] });
    expect(JSON.stringify(e)).not.toContain(SECRET);
  });
});
