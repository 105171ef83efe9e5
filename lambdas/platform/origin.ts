import { createHash, timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Config } from './config.js';
import { header } from './http.js';

/**
 * The edge (lib/constructs/edge.ts, docs/decisions/edge.md): CloudFront adds the origin secret as this header to
 * every request it sends to the HTTP API, overwriting one a client sent, and a viewer-request CloudFront Function
 * sets the viewer's address in the second. With `config.originSecret` set, a request without the secret did not
 * come through the edge and is refused; without it (dev, staging, `npm start` by default) nothing is checked.
 */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';
export const VIEWER_ADDRESS_HEADER = 'x-viewer-address';

/** What a request that bypassed the edge is told (403 `forbidden`, before routing and authentication). */
export const ORIGIN_REFUSAL = 'Call the API through its published URL.';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** The configured secret's digest, computed once (a process has one configuration). */
let known: { secret: string; digest: Buffer } | undefined;

/**
 * Whether the request carries the configured origin secret. Compared as SHA-256 digests, equal in length
 * whatever was sent, with `timingSafeEqual`: the time taken says nothing of how much of the secret matched.
 * False whenever no secret is configured.
 */
export function fromEdge(event: Pick<APIGatewayProxyEvent, 'headers'>, config: Pick<Config, 'originSecret'>): boolean {
  if (!config.originSecret) return false;
  const sent = header(event, ORIGIN_VERIFY_HEADER);
  if (sent === undefined) return false;
  if (known?.secret !== config.originSecret) known = { secret: config.originSecret, digest: digest(config.originSecret) };
  return timingSafeEqual(digest(sent), known.digest);
}

/** Whether the deployment lets only the edge in. */
export function edgeOnly(config: Pick<Config, 'originSecret'>): boolean {
  return config.originSecret !== '';
}

/**
 * One check of a request's origin: whether it came through the edge (the secret is configured and matched), and
 * the caller's address: the edge's `x-viewer-address` then, else the connection's source address as API Gateway
 * reports it. A client's own `x-viewer-address` is never believed: without the secret it is ignored, and through
 * the edge the CloudFront Function has overwritten it.
 */
export function originOf(event: Pick<APIGatewayProxyEvent, 'headers' | 'requestContext'>, config: Pick<Config, 'originSecret'>): { fromEdge: boolean; ip: string | undefined } {
  const source = event.requestContext?.identity?.sourceIp ?? undefined;
  const edge = fromEdge(event, config);
  return { fromEdge: edge, ip: (edge && header(event, VIEWER_ADDRESS_HEADER)) || source };
}

/**
 * Removes the secret from the event once it has been checked, so nothing after the shell (an operation, an
 * error log, a future header echo) can ever see or repeat it.
 */
export function forgetOriginSecret(event: Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'>): void {
  for (const headers of [event.headers, event.multiValueHeaders]) {
    if (!headers) continue;
    for (const name of Object.keys(headers)) if (name.toLowerCase() === ORIGIN_VERIFY_HEADER) delete headers[name];
  }
}
