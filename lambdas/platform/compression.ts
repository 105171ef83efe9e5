import { constants, gzipSync } from 'node:zlib';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { header } from './http.js';

/**
 * Responses in gzip for clients that ask for it (Accept-Encoding), in API
 * Gateway's binary form: a base64 body with isBase64Encoded, which the
 * gateway decodes before sending. JSON compresses 5–20×, so large lists and
 * the kitchen's buckets cross the internet (and Lambda's 6 MB response
 * limit) several times smaller. docs/decisions/compression.md says why.
 */

/** Smaller bodies go as they are: gzip's framing and the CPU would cost more than they save. */
export const MIN_COMPRESSED_BYTES = 1024;

/** RFC 9110 12.5.3: gzip (or `*`) listed with a non-zero weight. */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  return acceptEncoding.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * The response as the client should get it: gzipped when it accepts that
 * and the body is worth it. For such a client an entity tag is weak, big
 * body or small and 304 alike, so its validator never changes with the size
 * of the body: another coding is another representation (RFC 9110 8.8.1),
 * and the weak form still matches a conditional read (contract 4.3).
 */
export function negotiated(event: APIGatewayProxyEvent, response: APIGatewayProxyResult): APIGatewayProxyResult {
  const headers = { ...((response.headers ?? {}) as Record<string, string>) };
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'content-encoding') || response.isBase64Encoded) return response;
  const gzip = acceptsGzip(header(event, 'accept-encoding'));
  if (gzip && headers.ETag && !headers.ETag.startsWith('W/')) headers.ETag = `W/${headers.ETag}`;
  if (headers.ETag || (response.body && Buffer.byteLength(response.body, 'utf8') >= MIN_COMPRESSED_BYTES)) {
    // The representation depends on Accept-Encoding, compressed or not.
    headers.Vary = headers.Vary ? `${headers.Vary}, Accept-Encoding` : 'Accept-Encoding';
  }
  if (!gzip || !response.body || Buffer.byteLength(response.body, 'utf8') < MIN_COMPRESSED_BYTES) return { ...response, headers };
  return {
    ...response,
    // Level 1: most of the size for a fraction of the default level's CPU.
    body: gzipSync(response.body, { level: constants.Z_BEST_SPEED }).toString('base64'),
    isBase64Encoded: true,
    headers: { ...headers, 'Content-Encoding': 'gzip' },
  };
}
