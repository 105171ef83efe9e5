import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CREDENTIAL_TYPES } from '#contract/credentials';
import { DELIVERY_STATUSES } from '#lambdas/webhooks/delivery-policy';
import { RESERVED_IDS } from '#contract/ids';
import { ENV } from '#platform/config';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { EVENT_TYPES, WEBHOOK_HEADERS } from '#lambdas/webhooks/events';

/**
 * Facts declared once: each spelling below appears in its home module and in no other source file; every
 * other file derives it (imports the constant, the type, the id builder or the check). The statuses and event
 * types are read from their home, so a new one is covered the day it is declared.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SOURCE_FOLDERS = ['lambdas', 'lib', 'local', 'admin-cli', 'ingest', 'smoke', 'bin', 'console/src'];

/** The spelling as code writes it: a quoted string of its own (not a word in prose, a `code span` in a comment or a longer key). */
const literal = (spelling: string) => new RegExp(`(['"])${spelling.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\1`);
/** The spelling anywhere, for a prefix no other text has. */
const anywhere = (spelling: string) => new RegExp(spelling.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

type Fact = {
  fact: string;
  spellings: { name: string; pattern: RegExp }[];
  home: string;
  /** Other files that may hold the same spelling for another reason, with it. */
  alsoIn?: Record<string, string>;
};

const FACTS: Fact[] = [
  {
    fact: "the environment's names",
    spellings: Object.values(ENV).map((name) => ({ name, pattern: new RegExp(`(['"\`])${name}\\1|\\b${name}:|env\\.${name}\\b`) })),
    home: 'lambdas/platform/config.ts',
    alsoIn: { 'lambdas/data/token-keys.ts': "the review page-token key's item, a table key that reads 'PAGE_TOKEN_KEY' too" },
  },
  { fact: 'the delivery-id shape', spellings: [{ name: 'dlv_', pattern: anywhere('dlv_') }], home: 'lambdas/webhooks/events.ts' },
  { fact: 'the event-id shape', spellings: [{ name: 'evt_', pattern: anywhere('evt_') }], home: 'lambdas/webhooks/events.ts' },
  {
    fact: 'the event types',
    spellings: EVENT_TYPES.map((type) => ({ name: `'${type}'`, pattern: literal(type) })),
    home: 'lambdas/webhooks/events.ts',
  },
  { fact: "the group index's name", spellings: [{ name: "'GSI1'", pattern: literal('GSI1') }], home: 'lambdas/data/table.ts' },
  { fact: "a group's partition", spellings: [{ name: 'GROUP#', pattern: anywhere('GROUP#') }], home: 'lambdas/data/store.ts' },
  {
    fact: 'the delivery statuses',
    spellings: DELIVERY_STATUSES.map((status) => ({ name: `'${status}'`, pattern: literal(status) })),
    home: 'lambdas/webhooks/delivery-policy.ts',
    alsoIn: { 'lambdas/webhooks/deliveries.ts': "the dead-letter marker's sort key, a table key that reads 'DEAD_LETTER' too" },
  },
  {
    fact: 'a day in milliseconds',
    spellings: [{ name: '86_400_000', pattern: /\b86_?400_?000\b|24 \* 60 \* 60 \* 1000/ }],
    home: 'lambdas/contract/business-date.ts',
  },
  {
    fact: 'rounding to hundredths',
    spellings: [{ name: 'Math.round(… * 100) / 100', pattern: /Math\.round\([^)]*\* 100\) \/ 100/ }],
    home: 'lambdas/domain/rounding.ts',
  },
  {
    fact: 'the YYYY-MM-DD schemas',
    spellings: [{ name: 'v.regex(ISO_DATE, …)', pattern: /regex\(ISO_DATE\b/ }],
    home: 'lambdas/contract/schemas/requests.ts',
  },
  {
    fact: 'an item less its primary key',
    spellings: [
      {
        name: "{ PK: _pk, SK: _sk, ...rest } or ['PK', 'SK']",
        pattern: /\{ PK: _pk, SK: _sk, \.\.\.\w+ \}|\[\s*'PK',\s*'SK'\s*\]/,
      },
    ],
    home: 'lambdas/data/store.ts',
  },
  {
    fact: "a function's default timeout",
    spellings: [{ name: 'timeoutSeconds ??', pattern: /timeoutSeconds \?\?/ }],
    home: 'lib/functions.ts',
  },
  {
    fact: 'the credential types',
    spellings: CREDENTIAL_TYPES.map((type) => ({ name: `'${type}'`, pattern: literal(type) })),
    home: 'lambdas/contract/credentials.ts',
  },
  {
    fact: "the beverage menu's scope",
    spellings: [{ name: "'bevq:read'", pattern: literal('bevq:read') }],
    home: 'lambdas/contract/scopes.ts',
  },
  {
    fact: 'the webhook header names',
    spellings: Object.values(WEBHOOK_HEADERS).map((header) => ({
      name: `'${header}'`,
      pattern: new RegExp(literal(header).source, 'i'),
    })),
    home: 'lambdas/webhooks/events.ts',
  },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const SOURCES = SOURCE_FOLDERS.map((folder) =>
  sourceFiles(folder).map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') })),
).flat();

/**
 * The words of route paths that stand where another route has an id (`/v1/{group_id}/locations` beside
 * `/v1/{group_id}/{location_id}`): an id spelled like one could never be reached.
 */
function wordsWhereIdsStand(paths: readonly string[]): Set<string> {
  const segments = paths.map((path) => path.split('/').filter(Boolean));
  const isParam = (segment: string | undefined) => segment?.startsWith('{') ?? false;
  const isIdParam = (segment: string | undefined) => /^\{\w+_id\}$/.test(segment ?? '');
  const samePrefix = (a: string[], b: string[], length: number) =>
    a.slice(0, length).every((segment, i) => segment === b[i] || (isParam(segment) && isParam(b[i])));
  return new Set(
    segments.flatMap((path) =>
      path.filter((segment, i) => !isParam(segment) && segments.some((other) => isIdParam(other[i]) && samePrefix(path, other, i))),
    ),
  );
}

describe('facts declared once', () => {
  it('reads the source', () => {
    expect(SOURCES.length).toBeGreaterThan(150);
  });

  it('reserves the route words that stand where an id may, and the first words of the paths: no more, no fewer', () => {
    const firstWords = ROUTES.map((route) => route.path.split('/')[1]!);
    const expected = new Set([...wordsWhereIdsStand(ROUTES.map((route) => route.path)), ...firstWords]);
    expect([...RESERVED_IDS].sort()).toEqual([...expected].sort());
  });

  for (const { fact, spellings, home, alsoIn = {} } of FACTS) {
    it(`spells ${fact} in ${home} only`, () => {
      for (const { name, pattern } of spellings) {
        const found = SOURCES.filter(({ text }) => pattern.test(text)).map(({ file }) => file);
        expect(found, `${name} is declared in ${home}`).toContain(home);
        expect(
          found.filter((file) => file !== home && !(file in alsoIn)),
          `${name} outside ${home}`,
        ).toEqual([]);
      }
    });
  }
});
