import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import { openApiDocument } from '#lib/openapi';
import { TOKEN_PATH } from '#contract/routes';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { pathResolver } from '#platform/api-handler';
import { decodedPath } from '#local/gateway';
import type { Reply } from './runtime.js';

const doc = openApiDocument('http://localhost') as any;
const resolvePath = pathResolver(ROUTES);
const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => void;
addFormats(ajv);
ajv.addSchema({ $id: 'openapi', components: doc.components }, 'openapi');

/**
 * Asserts a response matches what the OpenAPI document promises for that
 * route and status; a response the document does not describe fails.
 */
export function expectContract(method: string, path: string, reply: Reply): void {
  // Routed as API Gateway routes it: on the decoded path.
  const decoded = decodedPath(path.split('?')[0]!);
  const resolution = decoded === null ? null : resolvePath(method, decoded);
  const template = resolution && 'match' in resolution ? resolution.match.route.path : null;
  const described = template ? doc.paths[template]?.[method.toLowerCase()]?.responses?.[String(reply.status)] : null;
  if (template) expect(described, `OpenAPI describes ${method} ${template} → ${reply.status}`).toBeTruthy();
  if (described && !described.content) {
    expect(reply.text, `${method} ${path} → ${reply.status} has no body`).toBe('');
    return;
  }
  // A file route: the reply's media type must be one the document names.
  if (described?.content && !described.content['application/json']) {
    expect(Object.keys(described.content)).toContain(reply.headers.get('content-type')?.split(';')[0]);
    return;
  }
  // What no route describes is a refusal: in the OAuth shape on the token endpoint (its ANY route), else the /v1 one.
  const refusal = decoded === TOKEN_PATH ? OAUTH_REFUSAL : REFUSAL;
  const schema = described?.content?.['application/json']?.schema ?? (template ? null : refusal);
  expect(schema, `OpenAPI describes ${method} ${template ?? path} → ${reply.status}`).toBeTruthy();
  const validate = validatorOf(schema);
  const valid = validate(reply.body);
  expect(validate.errors ?? [], `${method} ${path} → ${reply.status} matches OpenAPI`).toEqual([]);
  expect(valid).toBe(true);
}

const REFUSAL = { $ref: '#/components/schemas/Error' };
const OAUTH_REFUSAL = { $ref: '#/components/schemas/OAuthError' };

/**
 * One compiled validator per schema of the document: ajv caches by the schema object, and a rebased copy is a new
 * object each time, so without this every reply compiled its schema again (the suites' largest share of CPU).
 */
const validators = new WeakMap<object, ValidateFunction>();
function validatorOf(schema: object): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = ajv.compile(rebase(schema))));
  return validate;
}

/** Points local component refs at the registered document. */
function rebase(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
}

export { doc as openApiDoc };
