import { describe, expect, it } from 'vitest';
import { SERVER_URL_PLACEHOLDER, withServerUrl } from '#contract/openapi-artefact';
import { openApiArtefact, openApiDocument } from '#lib/openapi';

describe('the OpenAPI artefact', () => {
  it('holds the document with a placeholder as its one server URL', () => {
    const artefact = JSON.parse(openApiArtefact());
    expect(artefact.servers).toEqual([{ url: SERVER_URL_PLACEHOLDER }]);
    expect(artefact).toEqual(openApiDocument(SERVER_URL_PLACEHOLDER));
  });

  it.each([
    'http://localhost:3000',
    'https://abc123.execute-api.eu-west-1.amazonaws.com/dev',
    'https://api.example.com',
    // Replacement patterns, quotes and non-ASCII stay literal and JSON-escaped as JSON.stringify escapes them.
    'https://x.example/$&$1$$"\\ü',
  ])('becomes byte for byte the generated document for %s', (baseUrl) => {
    expect(withServerUrl(openApiArtefact(), baseUrl)).toBe(JSON.stringify(openApiDocument(baseUrl)));
  });
});
