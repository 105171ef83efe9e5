import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { acceptsGzip, MIN_COMPRESSED_BYTES, negotiated } from '#platform/http';

const eventWith = (acceptEncoding?: string) =>
  ({ headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } }) as unknown as APIGatewayProxyEvent;
const big = JSON.stringify({ data: 'x'.repeat(MIN_COMPRESSED_BYTES) });

describe('Accept-Encoding (RFC 9110 12.5.3)', () => {
  it.each([
    ['gzip', true],
    ['GZIP', true],
    ['br, gzip;q=0.5', true],
    ['x-gzip', true],
    ['*', true],
    ['*;q=0.1', true],
    ['gzip;q=0', false],
    ['gzip; q=0.000', false],
    ['br, deflate', false],
    ['identity', false],
    ['', false],
    [undefined, false],
  ] as const)('%s → %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});

describe('negotiated responses', () => {
  it('gzips a body of at least the threshold for a client that accepts gzip, as a base64 body', () => {
    const out = negotiated(eventWith('gzip'), { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: big });
    expect(out.isBase64Encoded).toBe(true);
    expect(out.headers).toMatchObject({ 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
    expect(gunzipSync(Buffer.from(out.body, 'base64')).toString('utf8')).toBe(big);
  });

  it('leaves a small body, a client without gzip, and a body already encoded as they are', () => {
    const small = negotiated(eventWith('gzip'), { statusCode: 200, headers: {}, body: '{"ok":true}' });
    expect(small).toEqual({ statusCode: 200, headers: {}, body: '{"ok":true}' });
    const identity = negotiated(eventWith('identity'), { statusCode: 200, headers: {}, body: big });
    expect([identity.body, identity.isBase64Encoded, identity.headers]).toEqual([big, undefined, { Vary: 'Accept-Encoding' }]);
    const binary = {
      statusCode: 200,
      headers: { 'Content-Type': 'image/png' },
      body: Buffer.from(big).toString('base64'),
      isBase64Encoded: true,
    };
    expect(negotiated(eventWith('gzip'), binary)).toBe(binary);
  });

  it('weakens an entity tag for a gzip client whatever the body (a 304 included), keeps it strong otherwise, and adds to Vary', () => {
    const headers = { ETag: '"abc"', Vary: 'Authorization' };
    expect(negotiated(eventWith('gzip'), { statusCode: 304, headers, body: '' }).headers).toEqual({
      ETag: 'W/"abc"',
      Vary: 'Authorization, Accept-Encoding',
    });
    expect(negotiated(eventWith('gzip'), { statusCode: 200, headers, body: '{}' }).headers).toMatchObject({ ETag: 'W/"abc"' });
    expect(negotiated(eventWith(), { statusCode: 304, headers, body: '' }).headers).toEqual({
      ETag: '"abc"',
      Vary: 'Authorization, Accept-Encoding',
    });
    expect(negotiated(eventWith('gzip'), { statusCode: 304, headers: { ETag: 'W/"abc"' }, body: '' }).headers!.ETag).toBe('W/"abc"');
  });
});
