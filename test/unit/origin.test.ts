import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '#platform/config';
import { forgetOriginSecret, ORIGIN_VERIFY_HEADER, originOf, VIEWER_ADDRESS_HEADER } from '#platform/http';
import { fixedOriginSecret, type OriginSecrets } from '#platform/origin-secret';

const SECRET = 'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bD1fH3kM5nP7rS9uW1yA3';

/** A payload 1.0 event with these headers, as API Gateway hands it over (the client's casing kept). */
function event(headers: Record<string, string>, sourceIp = '130.176.12.34'): APIGatewayProxyEvent {
  const multiValueHeaders = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]]));
  return { headers, multiValueHeaders, requestContext: { identity: { sourceIp } } } as unknown as APIGatewayProxyEvent;
}

describe('the origin check (platform/http.ts, originOf)', () => {
  const on = fixedOriginSecret(SECRET);
  const off = undefined;
  const fromEdge = async (e: APIGatewayProxyEvent, secrets: OriginSecrets | undefined) => (await originOf(e, secrets)).fromEdge;
  const ipOf = async (e: APIGatewayProxyEvent, secrets: OriginSecrets | undefined) => (await originOf(e, secrets)).ip;

  it('reads ORIGIN_SECRET (local) and ORIGIN_SECRET_ARN (a stage) from the environment; empty means no check', () => {
    expect(configFromEnv({ ORIGIN_SECRET: SECRET })).toMatchObject({ originSecret: SECRET, originSecretArn: '' });
    const arn = 'arn:aws:secretsmanager:us-east-1:111111111111:secret:OriginSecret-AbCdEf';
    expect(configFromEnv({ ORIGIN_SECRET_ARN: arn })).toMatchObject({ originSecret: '', originSecretArn: arn });
    expect(configFromEnv({})).toMatchObject({ originSecret: '', originSecretArn: '' });
  });

  it("knows the edge by the exact secret, whatever the header name's casing", async () => {
    expect(await fromEdge(event({ [ORIGIN_VERIFY_HEADER]: SECRET }), on)).toBe(true);
    expect(await fromEdge(event({ 'X-Origin-Verify': SECRET }), on)).toBe(true);
    for (const wrong of ['', 'x', SECRET.slice(1), `${SECRET}x`, SECRET.toLowerCase(), ` ${SECRET}`]) {
      expect(await fromEdge(event({ [ORIGIN_VERIFY_HEADER]: wrong }), on), JSON.stringify(wrong)).toBe(false);
    }
    expect(await fromEdge(event({}), on)).toBe(false);
    // No secret configured: nothing is "from the edge", whatever is sent.
    expect(await fromEdge(event({ [ORIGIN_VERIFY_HEADER]: '' }), off)).toBe(false);
    expect(await fromEdge(event({ [ORIGIN_VERIFY_HEADER]: SECRET }), off)).toBe(false);
  });

  it("believes x-viewer-address only from the edge, else the connection's source address", async () => {
    const spoofed = { [VIEWER_ADDRESS_HEADER]: '203.0.113.7' };
    expect(await ipOf(event({ ...spoofed, [ORIGIN_VERIFY_HEADER]: SECRET }), on)).toBe('203.0.113.7');
    expect(await ipOf(event({ ...spoofed, [ORIGIN_VERIFY_HEADER]: 'guess' }), on)).toBe('130.176.12.34');
    expect(await ipOf(event(spoofed), on)).toBe('130.176.12.34');
    // Without an edge the header is anyone's to send, so it is never read.
    expect(await ipOf(event({ ...spoofed, [ORIGIN_VERIFY_HEADER]: SECRET }), off)).toBe('130.176.12.34');
    // From the edge without the function's header (it always sets one): the source address.
    expect(await ipOf(event({ [ORIGIN_VERIFY_HEADER]: SECRET }), on)).toBe('130.176.12.34');
  });

  it('forgets the secret header in both header maps, in any casing, and nothing else', () => {
    const e = event({ 'X-Origin-Verify': SECRET, Authorization: 'Bearer t', [VIEWER_ADDRESS_HEADER]: '203.0.113.7' });
    forgetOriginSecret(e);
    expect(e.headers).toEqual({ Authorization: 'Bearer t', [VIEWER_ADDRESS_HEADER]: '203.0.113.7' });
    expect(e.multiValueHeaders).toEqual({ Authorization: ['Bearer t'], [VIEWER_ADDRESS_HEADER]: ['203.0.113.7'] });
    expect(JSON.stringify(e)).not.toContain(SECRET);
  });
});
