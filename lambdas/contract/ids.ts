/**
 * Words a route uses where an id may stand, and the paths' first words; an id equal to one could never be reached
 * by its path (test/unit/facts-once.test.ts derives them from the route table).
 */
export const RESERVED_IDS: ReadonlySet<string> = new Set([
  'locations',
  'modules',
  'shiftq',
  'bevq',
  'campaigns',
  'openapi.json',
  'assets',
  'oauth',
  'v1',
]);

/**
 * The id rule, for every id a client or operator names (groups, locations,
 * applications, destinations, deliveries, campaigns): ids appear in URL paths
 * and inside table keys, so a small safe alphabet and 1-64 characters, which
 * keeps every key far inside DynamoDB's key limits. Plain code, no schema
 * library: the token function checks ids too and stays light.
 */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const ID_RULE = 'must be 1-64 letters, digits, "-" or "_", starting with a letter or digit';

/** The id rule and its reserved words as one pattern, compiled once when the module loads. */
const ID = new RegExp(`^(?!(?:${[...RESERVED_IDS].join('|').replaceAll('.', '\\.')})$)${ID_PATTERN.source.slice(1)}`);

/** A path segment that breaks the id rule names nothing: its path matches no resource (404, before any read). */
export const isId: (value: string) => boolean = RegExp.prototype.test.bind(ID);

/** Client-chosen retry key (for example a UUID), sent as Idempotency-Key. */
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{8,128}$/;
