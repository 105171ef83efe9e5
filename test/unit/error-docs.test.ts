import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '#contract/errors';
import { OAUTH_ERROR_CODES } from '#lambdas/token/schemas';

/**
 * docs/api.md's errors table is what an integrator reads to handle refusals: it lists every code the API can
 * answer (the catalogue every refusal is built from, lambdas/contract/errors.ts) with its status, and the token
 * endpoint's paragraph names every OAuth code (lambdas/token/schemas.ts).
 */
const API_DOC = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
const ERRORS_SECTION = API_DOC.slice(API_DOC.indexOf('## Errors'), API_DOC.indexOf('\n## ', API_DOC.indexOf('## Errors') + 1));

/** The table's rows as code → status (a row may name several codes of one status). */
function documentedCodes(): Map<string, number> {
  const codes = new Map<string, number>();
  for (const line of ERRORS_SECTION.split('\n')) {
    const cells = /^\| (\d{3}) \| ([^|]+) \|/.exec(line);
    if (!cells) continue;
    for (const [, code] of cells[2]!.matchAll(/`([a-z_]+)`/g)) codes.set(code!, Number(cells[1]));
  }
  return codes;
}

describe('the errors table of docs/api.md', () => {
  it('lists every code of the catalogue with its status, and nothing else', () => {
    const documented = documentedCodes();
    expect(documented.size).toBeGreaterThan(10);
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(Object.entries(ERRORS).map(([code, { status }]) => [code, status])));
  });

  it("names every code of the token endpoint's OAuth errors", () => {
    const paragraph = ERRORS_SECTION.slice(ERRORS_SECTION.indexOf('The token endpoint answers OAuth errors'));
    for (const code of OAUTH_ERROR_CODES) expect(paragraph, code).toContain(`\`${code}\``);
  });
});
