import type { Check } from './report.js';
import type { Reply } from './http.js';

/** Field name → the contract's type for it; `?null` admits null as well. */
export type Spec = Record<string, 'string' | 'number' | 'boolean' | 'object' | 'array' | 'string?null'>;

function typeOf(value: unknown): string {
  if (value === undefined) return '(absent)';
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** What in `value` breaks `spec`, as short phrases ("slug missing", "scopes is string"). */
export function mismatches(value: unknown, spec: Spec): string[] {
  if (typeOf(value) !== 'object') return [value === undefined ? '(absent)' : `is ${typeOf(value)}`];
  const object = value as Record<string, unknown>;
  return Object.entries(spec).flatMap(([field, want]) => {
    const got = typeOf(object[field]);
    if (got === '(absent)') return [`${field} missing`];
    const allowed = want === 'string?null' ? ['string', 'null'] : [want];
    return allowed.includes(got) ? [] : [`${field} is ${got}`];
  });
}

/** The value has the contract's type ("a string", "an object"). */
export function isA(check: Check, what: string, value: unknown, type: 'string' | 'object'): Check {
  return check.holds(what, type === 'string' ? 'a string' : 'an object', typeOf(value) === type, typeOf(value));
}

export function conforms(check: Check, what: string, value: unknown, spec: Spec): Check {
  const wrong = mismatches(value, spec);
  return check.holds(what, 'has the contract fields', wrong.length === 0, wrong.join(', '));
}

function isIsoTimestamp(value: unknown): boolean {
  return typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value) && !Number.isNaN(Date.parse(value));
}

/** The common envelope of a successful resource (contract 2.1); locationId only on location resources. */
export function envelope(check: Check, reply: Reply, want: { resource: string; groupId: string; locationId?: string }): Check {
  const body = reply.json ?? {};
  check
    .equal('status', 200, reply.status)
    .equal('ok', true, body.ok)
    .equal('version', 'v1', body.version)
    .equal('resource', want.resource, body.resource)
    .equal('groupId', want.groupId, body.groupId);
  if (want.locationId) check.equal('locationId', want.locationId, body.locationId);
  return isA(check, 'data', body.data, 'object');
}

export function generatedAt(check: Check, reply: Reply): Check {
  const value = reply.json?.generatedAt;
  return check.holds('generatedAt', 'ISO 8601', isIsoTimestamp(value), String(value));
}

/** The /v1 error shape: ok false, version v1, error {code, message, status, requestId}, and X-Request-Id. */
export function errorShape(check: Check, reply: Reply, status: number, code: string): Check {
  const body = reply.json ?? {};
  return conforms(
    check
      .equal('status', status, reply.status)
      .equal('error.code', code, body.error?.code)
      .equal('ok', false, body.ok)
      .equal('version', 'v1', body.version)
      .equal('error.status', status, body.error?.status),
    'error',
    body.error,
    { code: 'string', message: 'string', status: 'number', requestId: 'string' },
  ).holds('X-Request-Id', 'present', reply.headers.has('x-request-id'), '(absent)');
}
