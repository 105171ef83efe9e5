import type * as v from 'valibot';

/**
 * The one way a value is checked against a Valibot schema (the /v1 request
 * rules, the admin inputs, ingest files) and the one translator of an issue
 * into a sentence for people: `Body field reasn is not allowed.`, `Query
 * parameter limit must be an integer from 1 to 1000.` A schema words only
 * what a generic sentence cannot say (a format, a rule of its own), as a
 * predicate too ("must be …", "is …"), never in Valibot's own words. Kept
 * small: every /v1 function carries it.
 */

type Issue = v.BaseIssue<unknown>;

/**
 * Thrown for admin input that breaks a rule; nothing has been written when it
 * is thrown. Status and code are what the admin API answers; to the CLI every
 * kind is bad input (exit 2).
 */
export class AdminInputError extends Error {
  readonly status: number = 400;
  readonly code: string = 'invalid_request';
}

/** Bounds (`min_value`, `max_length`, `length` …): of a number, or of a length in characters of a text or items of a list. */
const BOUNDS: Record<string, string> = { min: 'at least', max: 'at most', length: 'exactly' };

/** What an issue says of its field, as a predicate; a schema's own message takes precedence over it. */
function predicateOf(issue: Issue): string {
  const { kind, type, expected, input } = issue;
  const requirement = (issue as { requirement?: unknown }).requirement;
  if (kind === 'schema') {
    if (expected === 'never') return 'is not allowed';
    if (input === undefined) return 'is required';
    // A picklist's or literal's `"a" | "b"` as `a, b`; a type by name (`Object` for every object and record).
    const listed = expected!.replace(/[()"]/g, '').replaceAll(' | ', ', ');
    if (type === 'picklist' || type === 'literal') return `must be ${type === 'picklist' ? 'one of ' : ''}${listed}`;
    return `must be of type ${listed.toLowerCase()}`;
  }
  const [bound, of] = type.split('_');
  if (BOUNDS[bound!]) {
    return of === 'value'
      ? `must be ${BOUNDS[bound!]} ${String(requirement)}`
      : `must have ${BOUNDS[bound!]} ${String(requirement)} ${Array.isArray(input) ? 'item' : 'character'}${requirement === 1 ? '' : 's'}`;
  }
  // Formats (a date, an e-mail address, a URL) are worded by the schema that asks for them.
  return /integer|number/.test(type) ? 'must be a whole number' : 'is not valid';
}

/**
 * The value's output; else `refuse` (the caller's error: a 400 of /v1, an admin refusal) with every issue as a
 * sentence, each field's first problem, so one refusal names every field to mend. `where` names what holds the
 * fields: `Body field`, `Query parameter`, `Path parameter`, `Field` (admin input); a problem of the value as a
 * whole (an ingest file that is no object) is the input's.
 */
export function validate<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  where: string,
  refuse: (message: string) => Error,
): v.InferOutput<S> {
  const { issues, value: output } = schema['~run']({ value }, { message: predicateOf, abortPipeEarly: true });
  if (!issues) return output;
  throw refuse(
    issues
      .map((issue) => `${issue.path ? `${where} ${issue.path.map((item) => item.key).join('.')}` : 'The input'} ${issue.message}.`)
      .join(' '),
  );
}

/** Input of the admin CLI, API and ingest: its output, or an AdminInputError naming every field that breaks a rule. */
export function parseInput<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  return validate(schema, value, 'Field', (message) => new AdminInputError(message));
}
