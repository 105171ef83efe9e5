import * as v from 'valibot';

/**
 * The one way a value is checked against a Valibot schema (the /v1 request
 * rules, the admin inputs, ingest files) and the one translator of an issue
 * into a sentence for people: `Body field reasn is not allowed.`, `Query
 * parameter limit must be an integer from 1 to 1000.` A schema names only
 * what a generic sentence cannot say (a format, a rule of its own); such a
 * message is a predicate too ("must be …", "is …"), completed here with the
 * field's name, never Valibot's own wording.
 */

type Issue = v.BaseIssue<unknown>;

const KINDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  loose_object: 'an object',
  strict_object: 'an object',
  record: 'an object',
  null: 'null',
};

/** `("a" | "b")` (Valibot's `expected` of a picklist or literal) as `a, b`. */
const options = (expected: string | null) =>
  (expected ?? '').replace(/^\((.*)\)$/, '$1').split(' | ').map((option) => option.replace(/^"(.*)"$/, '$1')).join(', ');

/** A bound on a length: characters of a text, items of a list. */
const count = (input: unknown, n: unknown) => (Array.isArray(input) ? `${n} item${n === 1 ? '' : 's'}` : `${n} character${n === 1 ? '' : 's'}`);

/** What an issue says of its field, as a predicate; schemas' own messages take precedence over it. */
export function predicateOf(issue: Issue): string {
  const requirement = (issue as { requirement?: unknown }).requirement;
  if (issue.kind === 'schema') {
    if (issue.type === 'strict_object' && issue.expected === 'never') return 'is not allowed';
    if (issue.input === undefined) return 'is required';
    if (issue.type === 'picklist' || issue.type === 'enum') return `must be one of ${options(issue.expected)}`;
    if (issue.type === 'literal') return `must be ${options(issue.expected)}`;
    return KINDS[issue.type] ? `must be ${KINDS[issue.type]}` : 'has the wrong type';
  }
  switch (issue.type) {
    case 'to_number':
    case 'integer':
    case 'safe_integer':
      return 'must be a whole number';
    case 'min_length':
      return `must have at least ${count(issue.input, requirement)}`;
    case 'max_length':
      return `must have at most ${count(issue.input, requirement)}`;
    case 'length':
      return `must have exactly ${count(issue.input, requirement)}`;
    case 'min_value':
      return `must be at least ${String(requirement)}`;
    case 'max_value':
      return `must be at most ${String(requirement)}`;
    case 'email':
      return 'must be an e-mail address';
    case 'url':
      return 'must be an absolute URL';
    default:
      return 'is not valid';
  }
}

/** What a sentence calls a field of the value (`Body field reason`) and the value itself (`Body`). */
export type Where = { field: string; whole: string };
export const BODY: Where = { field: 'Body field', whole: 'Body' };
export const QUERY: Where = { field: 'Query parameter', whole: 'Query' };
export const PATH: Where = { field: 'Path parameter', whole: 'Path' };
/** Admin input (CLI, API, ingest files), and a single value of it by its name. */
export const input = (whole = 'Input'): Where => ({ field: 'Field', whole });

export function sentenceOf(issue: Issue, where: Where): string {
  const path = (issue.path ?? []).map((item) => String(item.key)).join('.');
  return `${path ? `${where.field} ${path}` : where.whole} ${issue.message}.`;
}

export type Validation<S extends v.GenericSchema> = { ok: true; value: v.InferOutput<S> } | { ok: false; message: string };

/** The value's output, or every issue as a sentence, so one refusal names every field to mend. */
export function validate<S extends v.GenericSchema>(schema: S, value: unknown, where: Where): Validation<S> {
  // A field's first problem only: a malformed date is not also "not a real calendar date".
  const result = v.safeParse(schema, value, { message: predicateOf, abortPipeEarly: true });
  if (result.success) return { ok: true, value: result.output };
  return { ok: false, message: result.issues.map((issue) => sentenceOf(issue, where)).join(' ') };
}
