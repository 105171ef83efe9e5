import { toJsonSchema, type OverrideSchemaContext } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import { ERRORS } from './errors.js';
import { ID_PARAMS, isLocationRoute, ROUTES, type Route } from './routes.js';
import { REQUEST_DESCRIPTIONS } from './request-descriptions.js';
import { ROUTE_SUMMARIES } from './route-summaries.js';
import { IDEMPOTENCY_KEY } from './ids.js';
import { SERVER_URL_PLACEHOLDER } from './openapi-artefact.js';
import { envelope, errorBody, id } from './schemas/common.js';
import { RESPONSE_DATA } from './schemas/responses.js';
import * as token from './schemas/token.js';
import { webhooksSection } from './webhook-openapi.js';

type JsonSchema = Record<string, unknown>;

/**
 * An object names every field it may hold: a response carries no other and a body with another is refused
 * (a loose object or a record says otherwise). A literal states its type beside its value, as client generators expect.
 */
function closed({ valibotSchema, jsonSchema }: OverrideSchemaContext) {
  if (valibotSchema.type === 'object' || valibotSchema.type === 'strict_object') {
    jsonSchema.additionalProperties = false;
    if (!(jsonSchema.required as string[]).length) delete jsonSchema.required;
  }
  if (valibotSchema.type === 'literal') jsonSchema.type = typeof jsonSchema.const as 'string' | 'number' | 'boolean';
  return jsonSchema;
}

/**
 * A schema (Valibot) as JSON Schema: the /v1 request rules and the response schemas alike. What JSON Schema
 * cannot say (a real calendar date, two fields that must agree, trimming, the string to number step of a
 * query value) is left to the descriptions and the 400.
 */
function schemaOf(schema: GenericSchema): JsonSchema {
  const { $schema: _ignored, ...json } = toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode: 'output',
    ignoreActions: ['check', 'partial_check', 'trim', 'to_number'],
    overrideSchema: closed,
  }) as JsonSchema;
  return json;
}

/** A request rule as JSON Schema, each field with its description (request-descriptions.ts). */
function ruleSchemaOf(rule: GenericSchema): JsonSchema & { properties: Record<string, JsonSchema> } {
  const schema = schemaOf(rule) as JsonSchema & { properties: Record<string, JsonSchema> };
  for (const [name, description] of Object.entries(REQUEST_DESCRIPTIONS.get(rule) ?? {}))
    schema.properties[name]!.description = description;
  return schema;
}

const errorRef = { $ref: '#/components/schemas/Error' };
const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: errorRef } } });

function pathParameters(route: Route) {
  const rules = route.params ? ruleSchemaOf(route.params).properties : {};
  return [...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: rules[name!] ?? ((ID_PARAMS as readonly string[]).includes(name!) ? schemaOf(id) : { type: 'string' }),
  }));
}

function queryParameters(route: Route) {
  if (!route.query) return [];
  return Object.entries(ruleSchemaOf(route.query).properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    schema,
  }));
}

function v1Operation(route: Route) {
  // A route without a data schema answers a document of its own (this OpenAPI document), not an envelope.
  const data = RESPONSE_DATA[route.operation];
  const success = data
    ? { description: 'Success, in the common envelope', schema: schemaOf(envelope(data, { locationLevel: isLocationRoute(route) })) }
    : { description: 'The document itself', schema: { type: 'object' } };
  const responses: Record<string, unknown> = {
    '200': route.produces
      ? {
          description: 'The file, with Cache-Control and ETag',
          headers: { ETag: { schema: { type: 'string' } }, 'Cache-Control': { schema: { type: 'string' } } },
          content: Object.fromEntries(route.produces.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
        }
      : { description: success.description, content: { 'application/json': { schema: success.schema } } },
  };
  if (route.scope) {
    responses['401'] = errorResponse('Token missing or invalid');
    responses['403'] = errorResponse('Token revoked or expired, outside its locations, or missing the scope');
    responses['429'] = errorResponse('Application rate limit exceeded; see Retry-After');
  }
  if (route.scope || route.params) responses['404'] = errorResponse('Group, location or resource not found');
  if (route.query || route.params || route.body) responses['400'] = errorResponse('Invalid query parameter, path parameter or body');
  if (route.body) {
    responses['413'] = errorResponse('Body larger than 16 KiB');
    responses['415'] = errorResponse('Body is not application/json');
    responses['422'] = errorResponse('Idempotency-Key already used with a different body (idempotency_key_reused)');
  }
  if (route.conditional) {
    responses['304'] = {
      description: 'Unchanged for the If-None-Match validator; empty body, same ETag, Cache-Control and Vary as a 200',
      headers: { ETag: { schema: { type: 'string' } } },
    };
  }
  return {
    operationId: route.operation,
    summary: ROUTE_SUMMARIES[route.operation],
    tags: [route.family],
    ...(route.scope ? { security: [{ bearer: [route.scope] }], 'x-required-scope': route.scope } : { security: [] }),
    parameters: [
      ...pathParameters(route),
      ...queryParameters(route),
      ...(route.conditional ? [{ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } }] : []),
      ...(route.body
        ? [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', pattern: IDEMPOTENCY_KEY.source } }]
        : []),
    ],
    ...(route.body ? { requestBody: { required: false, content: { 'application/json': { schema: ruleSchemaOf(route.body) } } } } : {}),
    responses,
  };
}

function tokenOperation(route: Route) {
  const oauthError = (description: string) => ({
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/OAuthError' } } },
  });
  return {
    operationId: route.operation,
    summary: ROUTE_SUMMARIES[route.operation],
    tags: [route.family],
    security: [{}, { clientBasic: [] }],
    requestBody: {
      required: true,
      content: { 'application/x-www-form-urlencoded': { schema: schemaOf(token.tokenRequest) } },
    },
    responses: {
      '200': { description: 'Access token', content: { 'application/json': { schema: schemaOf(token.tokenResponse) } } },
      '400': oauthError('invalid_request or unsupported_grant_type'),
      '401': oauthError('invalid_client'),
      '429': oauthError('temporarily_unavailable; see Retry-After'),
    },
  };
}

let cached: { paths: Record<string, Record<string, unknown>>; webhooks: unknown; components: unknown } | undefined;

/** OpenAPI 3.1, generated from the route table and its schemas; built once per process. */
export function openApiDocument(baseUrl: string) {
  const hooks = cached ? null : webhooksSection(schemaOf);
  cached ??= {
    webhooks: hooks!.webhooks,
    paths: ROUTES.reduce<Record<string, Record<string, unknown>>>((paths, route) => {
      const operation = route.family === 'token' ? tokenOperation(route) : v1Operation(route);
      (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
      return paths;
    }, {}),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Access token from /oauth/token, or a legacy bearer credential' },
        clientBasic: { type: 'http', scheme: 'basic', description: 'Client id and secret, for /oauth/token only' },
      },
      schemas: {
        Error: { ...schemaOf(errorBody), 'x-error-codes': Object.keys(ERRORS) },
        OAuthError: schemaOf(token.oauthError),
        WebhookPayload: hooks!.schema,
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Customer API',
      version: 'v1',
      description: 'Venue data, an Auto Scheduler emergency stop and signed beverage-menu webhooks for customer backends.',
    },
    servers: [{ url: baseUrl }],
    ...cached,
  };
}

/**
 * The document as the discovery function serves it, with SERVER_URL_PLACEHOLDER for the server URL (see
 * openapi-artefact.ts): written beside the discovery bundle at synth time and by the local runtime at start.
 */
export function openApiArtefact(): string {
  const text = JSON.stringify(openApiDocument(SERVER_URL_PLACEHOLDER));
  if (text.split(JSON.stringify(SERVER_URL_PLACEHOLDER)).length !== 2) {
    throw new Error(`OpenAPI artefact: ${SERVER_URL_PLACEHOLDER} must appear exactly once, as the server URL`);
  }
  return text;
}
