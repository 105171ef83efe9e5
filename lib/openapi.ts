import {
  toJsonSchema,
  toJsonSchemaDefs,
  type ConversionConfig,
  type OverrideActionContext,
  type OverrideSchemaContext,
} from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import { ERRORS } from '#contract/errors';
import { type Family, ID_PARAMS, isLocationRoute, type Route } from '#contract/routes';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { IDEMPOTENCY_KEY } from '#contract/ids';
import { SERVER_URL_PLACEHOLDER } from '#contract/openapi-artefact';
import { webhookPayload } from '#lambdas/webhooks/events';
import * as bevq from '#contract/schemas/bevq';
import * as campaigns from '#lambdas/campaigns/schemas';
import * as common from '#contract/schemas/common';
import * as discovery from '#contract/schemas/discovery';
import * as matriq from '#contract/schemas/matriq';
import * as orderboard from '#lambdas/orderboard/schemas';
import * as shiftq from '#lambdas/shiftq/schemas';
import * as shiftqKitchen from '#lambdas/shiftq/kitchen-schemas';
import * as sportsq from '#contract/schemas/sportsq';
import * as token from '#lambdas/token/schemas';
import { webhooksSection } from '#lambdas/webhooks/openapi';

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

/** A bound that the exclusive one beside it makes redundant (a safe integer's range beside `> 0`) is dropped. */
function tightest({ jsonSchema }: OverrideActionContext) {
  const { minimum, exclusiveMinimum, maximum, exclusiveMaximum } = jsonSchema;
  if (typeof exclusiveMinimum === 'number' && typeof minimum === 'number' && minimum <= exclusiveMinimum) delete jsonSchema.minimum;
  if (typeof exclusiveMaximum === 'number' && typeof maximum === 'number' && maximum >= exclusiveMaximum) delete jsonSchema.maximum;
  return jsonSchema;
}

const COMPONENTS = '#/components/schemas/';
const ref = (name: string) => ({ $ref: `${COMPONENTS}${name}` });
const pascal = (name: string) => `${name[0]!.toUpperCase()}${name.slice(1)}`;
const isSchema = (value: unknown): value is GenericSchema => (value as { kind?: unknown } | null)?.kind === 'schema';

/**
 * Each family's schema module, whose exports a row's `response` names; the document names every schema they export
 * after its export name, in this order (the token module's are named after its route first).
 */
const SCHEMA_MODULES: Partial<Record<Family, Record<string, unknown>>> = {
  bevq,
  campaigns,
  discovery,
  matriq,
  orderboard,
  shiftq,
  sportsq,
  token,
};

/** The schema a row's `response` names: the envelope's `data`, or the token endpoint's body. */
function responseOf(route: Route): GenericSchema | undefined {
  if (route.response === undefined) return undefined;
  const schema = SCHEMA_MODULES[route.family]?.[route.response];
  if (!isSchema(schema)) throw new Error(`OpenAPI: ${route.operation}'s response ${route.response} is no schema of its family's module`);
  return schema;
}

/** The envelope around each resource, one schema object per `data` schema and level (so an alias shares its name). */
const envelopes = new Map<GenericSchema, Map<boolean, GenericSchema>>();
function envelopeOf(data: GenericSchema, route: Route): GenericSchema {
  const locationLevel = isLocationRoute(route);
  const byLevel = envelopes.get(data) ?? envelopes.set(data, new Map()).get(data)!;
  return byLevel.get(locationLevel) ?? byLevel.set(locationLevel, common.envelope(data, { locationLevel })).get(locationLevel)!;
}

/**
 * The component schemas, by the schema object each names: wherever the converter meets one of these objects it
 * writes a $ref, so a generated client's types carry the names. Every name comes from the code: the error bodies
 * and the webhook payload as established, then each route's operation (`<Operation>Response` its JSON body,
 * `<Operation>Data` the envelope's `data`, `<Operation>Request` its request body), then every other schema that
 * common.ts and the response modules export, as exported (isoTimestamp: IsoTimestamp, menuItem: MenuItem). A
 * schema keeps its first name: an alias route's resource is named after the route it repeats.
 */
function componentNames(): Record<string, GenericSchema> {
  const named = new Map<GenericSchema, string>();
  const name = (schema: GenericSchema, as: string) => {
    if (!named.has(schema)) named.set(schema, as);
  };
  name(common.errorBody, 'Error');
  name(token.oauthError, 'OAuthError');
  name(webhookPayload, 'WebhookPayload');
  for (const route of ROUTES) {
    const operation = pascal(route.operation);
    const data = responseOf(route);
    if (route.family === 'token') {
      name(token.tokenRequest, `${operation}Request`);
      if (data) name(data, `${operation}Response`);
    } else if (data) {
      name(envelopeOf(data, route), `${operation}Response`);
      name(data, `${operation}Data`);
    }
    if (route.body) name(route.body, `${operation}Request`);
  }
  // The kitchen snapshot's module is shiftq's too: no row names it, its data schema in shiftq's module does.
  for (const module of [common, ...Object.values(SCHEMA_MODULES), shiftqKitchen]) {
    for (const [exported, value] of Object.entries(module)) if (isSchema(value)) name(value, pascal(exported));
  }
  const byName = Object.fromEntries([...named].map(([schema, as]) => [as, schema]));
  if (Object.keys(byName).length !== named.size) throw new Error('OpenAPI: two schemas under one component name');
  return byName;
}

/**
 * What JSON Schema cannot say (a real calendar date, two fields that must agree, trimming and NFC, the string to
 * number step of a query value) is left to the descriptions and the 400.
 */
const CONVERSION = {
  target: 'draft-2020-12',
  typeMode: 'output',
  ignoreActions: ['check', 'partial_check', 'trim', 'normalize', 'to_number'],
  overrideSchema: closed,
  overrideAction: tightest,
  overrideRef: ({ referenceId }) => `${COMPONENTS}${referenceId}`,
} satisfies ConversionConfig;

/** The component schemas as JSON Schema, each request body's fields with the descriptions its row gives them. */
function componentSchemas(named: Record<string, GenericSchema>, names: Map<GenericSchema, string>): Record<string, JsonSchema> {
  const schemas = toJsonSchemaDefs(named, CONVERSION) as Record<string, JsonSchema>;
  for (const route of ROUTES) if (route.body) describeFields(schemas[names.get(route.body)!]!, route);
  return schemas;
}

/** Gives the fields of a rule's JSON Schema that the route's row describes their descriptions. */
function describeFields(json: JsonSchema, route: Route) {
  const properties = json.properties as Record<string, JsonSchema>;
  for (const [field, description] of Object.entries(route.fields ?? {})) if (properties[field]) properties[field].description = description;
}

/**
 * A parameter rule (Valibot) as JSON Schema, the named building blocks it uses as $refs (only those: the converter
 * converts every definition it is given on each call).
 */
function schemaOf(schema: GenericSchema, blocks: Record<string, GenericSchema>): JsonSchema {
  const { $schema: _schema, $defs: _defs, ...json } = toJsonSchema(schema, { ...CONVERSION, definitions: blocks }) as JsonSchema;
  return json;
}

/** A request rule's fields as JSON Schemas, each with the description the route's row gives it. */
function ruleFields(rule: GenericSchema, route: Route, blocks: Record<string, GenericSchema>): Record<string, JsonSchema> {
  const json = schemaOf(rule, blocks);
  describeFields(json, route);
  return json.properties as Record<string, JsonSchema>;
}

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ref('Error') } } });

/** A read the table throttled past the SDK's retries (docs/decisions/throttled-reads.md). */
const THROTTLED = 'The table throttled the request past its retries (service_unavailable); see Retry-After';
/** Any route of /v1 or the token endpoint, on a stage with an edge (docs/decisions/edge.md). */
const EDGE_REFUSAL = 'With an edge in front, a request that did not come through it (forbidden)';

function operationOf(route: Route, blocks: Record<string, GenericSchema>, names: Map<GenericSchema, string>) {
  const nameOf = (schema: GenericSchema) => ref(names.get(schema)!);
  return route.family === 'token' ? tokenOperation(route, nameOf) : v1Operation(route, blocks, nameOf);
}

function pathParameters(route: Route, blocks: Record<string, GenericSchema>) {
  const rules = route.params ? ruleFields(route.params, route, blocks) : {};
  return [...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: rules[name!] ?? ((ID_PARAMS as readonly string[]).includes(name!) ? schemaOf(common.id, blocks) : { type: 'string' }),
  }));
}

function queryParameters(route: Route, blocks: Record<string, GenericSchema>) {
  if (!route.query) return [];
  return Object.entries(ruleFields(route.query, route, blocks)).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    schema,
  }));
}

function v1Operation(route: Route, blocks: Record<string, GenericSchema>, nameOf: (schema: GenericSchema) => JsonSchema) {
  // A route without a data schema answers a document of its own (this OpenAPI document), not an envelope.
  const data = responseOf(route);
  const success = data
    ? { description: 'Success, in the common envelope', schema: nameOf(envelopeOf(data, route)) }
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
    responses['403'] = errorResponse(
      `Token revoked or expired, outside its locations, or missing the scope; ${EDGE_REFUSAL.toLowerCase()}`,
    );
    responses['429'] = errorResponse('Application rate limit exceeded; see Retry-After');
    responses['503'] = errorResponse(THROTTLED);
  } else {
    responses['403'] = errorResponse(EDGE_REFUSAL);
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
    summary: route.summary,
    tags: [route.family],
    // A public route says so (`security: []`): without it the document-wide default would be unstated, not "none".
    ...(route.scope ? { security: [{ bearer: [route.scope] }], 'x-required-scope': route.scope } : { security: [] }),
    parameters: [
      ...pathParameters(route, blocks),
      ...queryParameters(route, blocks),
      ...(route.conditional ? [{ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } }] : []),
      ...(route.body
        ? [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', pattern: IDEMPOTENCY_KEY.source } }]
        : []),
    ],
    ...(route.body ? { requestBody: { required: false, content: { 'application/json': { schema: nameOf(route.body) } } } } : {}),
    responses,
  };
}

function tokenOperation(route: Route, nameOf: (schema: GenericSchema) => JsonSchema) {
  const oauthError = (description: string) => ({ description, content: { 'application/json': { schema: ref('OAuthError') } } });
  return {
    operationId: route.operation,
    summary: route.summary,
    tags: [route.family],
    security: [{}, { clientBasic: [] }],
    requestBody: {
      required: true,
      content: { 'application/x-www-form-urlencoded': { schema: nameOf(token.tokenRequest) } },
    },
    responses: {
      '200': { description: 'Access token', content: { 'application/json': { schema: nameOf(responseOf(route)!) } } },
      '400': oauthError('invalid_request or unsupported_grant_type'),
      '401': oauthError('invalid_client'),
      '403': errorResponse(`${EDGE_REFUSAL}, in the /v1 error shape`),
      '429': oauthError('temporarily_unavailable; see Retry-After'),
      '503': errorResponse(`${THROTTLED}, in the /v1 error shape`),
    },
  };
}

/** The component names the document refers to, directly or through another component: the others are left out. */
function referenced(document: unknown, schemas: Record<string, JsonSchema>): Set<string> {
  const names = new Set<string>();
  const visit = (text: string) => {
    for (const [, name] of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) {
      if (names.has(name!)) continue;
      names.add(name!);
      visit(JSON.stringify(schemas[name!]));
    }
  };
  visit(JSON.stringify(document));
  return names;
}

let cached: { paths: Record<string, Record<string, unknown>>; webhooks: unknown; components: unknown } | undefined;

function build(): NonNullable<typeof cached> {
  const named = componentNames();
  const names = new Map(Object.entries(named).map(([name, schema]) => [schema, name]));
  const exported = new Set<unknown>(Object.values(common));
  const blocks = Object.fromEntries(Object.entries(named).filter(([, schema]) => exported.has(schema)));
  const all = componentSchemas(named, names);
  all.Error = { ...all.Error, 'x-error-codes': Object.keys(ERRORS) };
  const paths = ROUTES.reduce<Record<string, Record<string, unknown>>>((paths, route) => {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route, blocks, names);
    return paths;
  }, {});
  const webhooks = webhooksSection(ref('WebhookPayload'));
  const used = referenced({ paths, webhooks }, all);
  return {
    webhooks,
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Access token from /oauth/token, or a legacy bearer credential' },
        clientBasic: { type: 'http', scheme: 'basic', description: 'Client id and secret, for /oauth/token only' },
      },
      schemas: Object.fromEntries(
        Object.keys(all)
          .filter((name) => used.has(name))
          .sort()
          .map((name) => [name, all[name]]),
      ),
    },
  };
}

/** OpenAPI 3.1, generated from the route table and its schemas; built once per process. */
export function openApiDocument(baseUrl: string) {
  cached ??= build();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Customer API',
      version: 'v1',
      description: 'Venue data, an Auto Scheduler emergency stop and signed beverage-menu webhooks for customer backends.',
      // Customers use the API under their agreement with the service, not under an open licence (SPDX LicenseRef- form).
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
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
