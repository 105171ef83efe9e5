import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Config } from './config.js';
import { ApiError } from '#contract/errors';
import { isLocationRoute, resourceName, type Route } from '#contract/routes';

export type HttpResponse = APIGatewayProxyResult & { headers: Record<string, string> };

export const JSON_TYPE = 'application/json; charset=utf-8';

export function jsonResponse(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return jsonTextResponse(statusCode, JSON.stringify(body), headers);
}

/** A JSON body serialised already (the OpenAPI artefact), with jsonResponse's headers. */
export function jsonTextResponse(statusCode: number, body: string, headers: Record<string, string> = {}): HttpResponse {
  return { statusCode, headers: { 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store', ...headers }, body };
}

/** What the envelope names of a /v1 request (an ApiRequest's). */
type Enveloped = { route: Route; params: Record<string, string>; now: number };

/** The common envelope of contract 2.1 around a resource's data. */
export function envelope(req: Enveloped, data: unknown, resource = resourceName(req.route)) {
  return {
    ok: true as const,
    version: 'v1' as const,
    resource,
    groupId: req.params.group_id!,
    ...(isLocationRoute(req.route) ? { locationId: req.params.location_id! } : {}),
    generatedAt: new Date(req.now).toISOString(),
    data,
  };
}

/** A /v1 resource's 200: its data in the envelope. */
export function ok(req: Enveloped, data: unknown, headers: Record<string, string> = {}): HttpResponse {
  return jsonResponse(200, envelope(req, data), headers);
}

/** The one error shape; the admin API passes its own codes (e.g. 409 conflict) in the same form. */
export function errorResponse(err: Pick<ApiError, 'status' | 'message' | 'headers'> & { code: string }, requestId: string): HttpResponse {
  return jsonResponse(
    err.status,
    { ok: false, version: 'v1', error: { code: err.code, message: err.message, status: err.status, requestId } },
    err.headers,
  );
}

/** Case-insensitive header lookup; API Gateway keeps the client's casing. */
export function header(event: Pick<APIGatewayProxyEvent, 'headers'>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
}

/**
 * The base URL of absolute URLs in responses: the stage's configured public base URL (its custom domain), else
 * the API's own domain as API Gateway reports it in the event (`requestContext.domainName`, with the stage prefix
 * of the default execute-api host), never the request's Host header, which the client chooses: a URL built from
 * it could point a cached document's readers anywhere. The scheme is `X-Forwarded-Proto`, which API Gateway (and
 * the local gateway) set themselves over any a client sent; only `http` and `https` are taken.
 */
export function baseUrlOf(event: APIGatewayProxyEvent, config: Config): string {
  if (config.publicBaseUrl) return config.publicBaseUrl;
  const proto = header(event, 'x-forwarded-proto') === 'http' ? 'http' : 'https';
  const host = event.requestContext.domainName ?? 'localhost';
  const fullPath = event.requestContext.path ?? event.path;
  const prefix = fullPath.endsWith(event.path) ? fullPath.slice(0, fullPath.length - event.path.length) : '';
  return `${proto}://${host}${prefix}`;
}

/**
 * The request headers `baseUrlOf` reads, for the `Vary` of a cacheable response that carries an absolute URL: none
 * with a configured base URL; else the gateway-set scheme header.
 */
export function baseUrlVary(config: Config): Record<string, string> {
  return config.publicBaseUrl ? {} : { Vary: 'X-Forwarded-Proto' };
}

/**
 * A value checked through the Standard Schema interface, which the request
 * rules (Valibot) and the admin inputs (zod) both implement: the output, or
 * the first issue with its path as `a.b`. Every rule here is synchronous.
 */
export function validate<S extends StandardSchemaV1>(
  schema: S,
  value: unknown,
): { ok: true; value: StandardSchemaV1.InferOutput<S> } | { ok: false; path: string; message: string } {
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise) throw new TypeError('an asynchronous schema cannot validate a request');
  if (!result.issues) return { ok: true, value: result.value };
  const issue = result.issues[0]!;
  const path = (issue.path ?? []).map((segment) => String(typeof segment === 'object' ? segment.key : segment)).join('.');
  return { ok: false, path, message: issue.message };
}

/** String parameters checked against their rules; the first problem is the 400's message. */
export function validated(rules: StandardSchemaV1, raw: Record<string, string>, what: string): Record<string, string> {
  const result = validate(rules, raw);
  if (!result.ok) throw new ApiError('invalid_request', `${what} ${result.path}: ${result.message}`);
  return result.value as Record<string, string>;
}

/** The query parameters named, single-valued and validated against their rules. */
export function validatedQuery(event: APIGatewayProxyEvent, rules: StandardSchemaV1, names: readonly string[]): Record<string, string> {
  return validated(rules, queryOf(event, names), 'Query parameter');
}

/** Single-valued query parameters; a parameter given twice is ambiguous and refused. */
export function queryOf(event: APIGatewayProxyEvent, known: readonly string[]): Record<string, string> {
  const multi = event.multiValueQueryStringParameters ?? {};
  const query: Record<string, string> = {};
  for (const name of known) {
    const values = multi[name] ?? (event.queryStringParameters?.[name] !== undefined ? [event.queryStringParameters[name]!] : []);
    if (values.length > 1) throw new ApiError('invalid_request', `Query parameter ${name} was given more than once.`);
    if (values.length === 1) query[name] = values[0]!;
  }
  return query;
}

/** The raw request body as bytes-as-text, decoding API Gateway's base64 form. */
export function bodyText(event: APIGatewayProxyEvent): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

export function bodyBytes(event: APIGatewayProxyEvent): number {
  if (!event.body) return 0;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').length : Buffer.byteLength(event.body, 'utf8');
}
