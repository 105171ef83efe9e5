import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DELIVERY_STATUSES } from '#contract/delivery-policy';
import { EVENT_TYPES } from '#contract/webhook-events';

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
  { fact: 'the delivery-id shape', spellings: [{ name: 'dlv_', pattern: anywhere('dlv_') }], home: 'lambdas/contract/webhook-events.ts' },
  { fact: 'the event-id shape', spellings: [{ name: 'evt_', pattern: anywhere('evt_') }], home: 'lambdas/contract/webhook-events.ts' },
  {
    fact: 'the event types',
    spellings: EVENT_TYPES.map((type) => ({ name: `'${type}'`, pattern: literal(type) })),
    home: 'lambdas/contract/webhook-events.ts',
  },
  { fact: "the group index's name", spellings: [{ name: "'GSI1'", pattern: literal('GSI1') }], home: 'lambdas/data/table.ts' },
  { fact: "a group's partition", spellings: [{ name: 'GROUP#', pattern: anywhere('GROUP#') }], home: 'lambdas/data/store.ts' },
  {
    fact: 'the delivery statuses',
    spellings: DELIVERY_STATUSES.map((status) => ({ name: `'${status}'`, pattern: literal(status) })),
    home: 'lambdas/contract/delivery-policy.ts',
    alsoIn: { 'lambdas/data/deliveries.ts': "the dead-letter marker's sort key, a table key that reads 'DEAD_LETTER' too" },
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

describe('facts declared once', () => {
  it('reads the source', () => {
    expect(SOURCES.length).toBeGreaterThan(150);
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
