import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { GenericSchema, InferOutput } from 'valibot';
import { MAX_REQUEST_BODY_BYTES } from './config.js';
import { ApiError } from '#contract/errors';
import { bodyBytes, bodyText, header } from './http.js';
import { IDEMPOTENCY_KEY } from '#contract/ids';
import { validate } from '#contract/validation';

/** Reading a request's input: path and query parameters, bodies, each through its rules. */

/** A request's refusal by its schema (contract/validation.ts): 400, its problems in words. */
const invalidRequest = (message: string) => new ApiError('invalid_request', message);

/** Path parameters validated against their rules. */
export function validatedParams(rules: GenericSchema, params: Record<string, string>): Record<string, string> {
  return validate(rules, params, 'Path parameter', invalidRequest) as Record<string, string>;
}

/** The query parameters named, single-valued and validated against their rules. */
export function validatedQuery(event: APIGatewayProxyEvent, rules: GenericSchema, names: readonly string[]): Record<string, string> {
  return validate(rules, queryOf(event, names), 'Query parameter', invalidRequest) as Record<string, string>;
}

/** Single-valued query parameters; a parameter given twice is ambiguous and refused. */
function queryOf(event: APIGatewayProxyEvent, known: readonly string[]): Record<string, string> {
  const multi = event.multiValueQueryStringParameters ?? {};
  const query: Record<string, string> = {};
  for (const name of known) {
    const values = multi[name] ?? (event.queryStringParameters?.[name] !== undefined ? [event.queryStringParameters[name]] : []);
    if (values.length > 1) throw new ApiError('invalid_request', `Query parameter ${name} was given more than once.`);
    if (values.length === 1) query[name] = values[0]!;
  }
  return query;
}

/**
 * Strict JSON request bodies for /v1 POSTs and the admin API (the shared
 * handler reads none). An absent body means `{}`; a present one must be
 * application/json (UTF-8), at most `maxBytes` (16 KiB unless the route says
 * otherwise), a JSON object, and valid for the route's schema. Each refusal
 * is a distinct, clear error and happens before anything is written.
 */
/** What a body over its route's limit is told (413 `payload_too_large`; the edge's static answer says the same). */
export const bodyTooLargeMessage = (maxBytes: number) => `The body must be at most ${maxBytes} bytes.`;

export function parseJsonBody<S extends GenericSchema>(
  event: APIGatewayProxyEvent,
  schema: S,
  maxBytes = MAX_REQUEST_BODY_BYTES,
): InferOutput<S> {
  if (bodyBytes(event) > maxBytes) {
    throw new ApiError('payload_too_large', bodyTooLargeMessage(maxBytes));
  }
  const text = bodyText(event);
  let value: unknown = {};
  if (text !== '') {
    if (!isJsonMediaType(header(event, 'content-type'))) {
      throw new ApiError('unsupported_media_type', 'Send the body as Content-Type: application/json.');
    }
    try {
      value = JSON.parse(text);
    } catch {
      throw new ApiError('invalid_request', 'The body is not valid JSON.');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ApiError('invalid_request', 'The body must be a JSON object.');
    }
  }
  return validate(schema, value, 'Body field', invalidRequest);
}

/** application/json, optionally with charset=utf-8. */
export function isJsonMediaType(value: string | undefined): boolean {
  if (!value) return false;
  const [type, ...params] = value.split(';').map((p) => p.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return params.every((p) => !p.startsWith('charset=') || p.replace(/"/g, '') === 'charset=utf-8');
}

/** The Idempotency-Key header, or null when absent; a malformed key is refused. */
export function idempotencyKeyOf(event: APIGatewayProxyEvent): string | null {
  const value = header(event, 'idempotency-key');
  if (value === undefined) return null;
  if (!IDEMPOTENCY_KEY.test(value)) {
    throw new ApiError('invalid_request', 'Idempotency-Key must be 8-128 letters, digits, ".", "_", ":" or "-".');
  }
  return value;
}
