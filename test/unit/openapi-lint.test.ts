import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '#lib/openapi';

/** Redocly's CLI (its package exports no programmatic lint); about a second for the whole document. */
const REDOCLY = join(createRequire(import.meta.url).resolve('@redocly/cli/package.json'), '..', 'bin', 'cli.js');

type Problem = { ruleId: string; severity: string; message: string; location: { pointer: string }[] };

async function lint(document: unknown): Promise<{ totals: { errors: number; warnings: number }; problems: Problem[] }> {
  const file = join(folder, 'openapi.json');
  writeFileSync(file, JSON.stringify(document));
  // Exit status 1 on errors: the JSON report is read either way.
  const { stdout } = await promisify(execFile)(process.execPath, [REDOCLY, 'lint', file, '--extends=recommended', '--format=json'], {
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
  }).catch((failure: { stdout?: string }) => ({ stdout: failure.stdout ?? '' }));
  return JSON.parse(stdout);
}

/** JSON Schema 2020-12 (Validation, 7.3) and the OpenAPI Initiative's format registry. */
const STANDARD_FORMATS = new Set([
  ...['date-time', 'date', 'time', 'duration', 'email', 'idn-email', 'hostname', 'idn-hostname', 'ipv4', 'ipv6'],
  ...['uri', 'uri-reference', 'iri', 'iri-reference', 'uuid', 'uri-template', 'json-pointer', 'relative-json-pointer', 'regex'],
  ...['int8', 'int16', 'int32', 'int64', 'uint8', 'float', 'double', 'decimal', 'byte', 'binary', 'base64url', 'password'],
]);

const folder = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the OpenAPI document, linted by Redocly with its recommended rules', () => {
  it('has neither errors nor warnings', async () => {
    // A stage's URL, as the discovery function serves it (example.com and localhost are warned about).
    const report = await lint(openApiDocument('https://abc123.execute-api.eu-west-1.amazonaws.com/dev'));
    const found = report.problems.map(
      ({ ruleId, severity, message, location }) => `${severity} ${ruleId} at ${location[0]?.pointer}: ${message}`,
    );
    expect(found).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('uses only the formats JSON Schema 2020-12 and the OpenAPI format registry define', () => {
    const formats = [...JSON.stringify(openApiDocument('https://api.test')).matchAll(/"format":"([^"]*)"/g)].map(([, format]) => format);
    expect(formats.length).toBeGreaterThan(0);
    expect(formats.filter((format) => !STANDARD_FORMATS.has(format!))).toEqual([]);
  });

  it('is told about a route that declares no security', async () => {
    const document = structuredClone(openApiDocument('https://abc123.execute-api.eu-west-1.amazonaws.com/dev')) as any;
    delete document.paths['/v1/openapi.json'].get.security;
    const report = await lint(document);
    expect(report.problems.map((p) => p.ruleId)).toEqual(['security-defined']);
  });
});
