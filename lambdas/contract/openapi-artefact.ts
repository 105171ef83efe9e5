/**
 * The OpenAPI document as a build artefact: `openApiArtefact()` (openapi.ts) renders it once, outside Lambda (the
 * stack at synth time, the local runtime at start), with a placeholder for the one request-dependent value, the
 * server URL; the discovery function reads the file and fills the placeholder in. This module stays free of schemas, so
 * the discovery bundle carries neither the JSON Schema converter nor the response schemas.
 */

/** The artefact's file name beside the discovery bundle (the function's default OPENAPI_DOCUMENT_PATH). */
export const OPENAPI_ARTEFACT = 'openapi.json';

/** Stands for the server URL (`servers[0].url`) in the artefact; appears there exactly once. */
export const SERVER_URL_PLACEHOLDER = '{{serverUrl}}';

/** The artefact's text with the request's base URL in place: byte for byte `JSON.stringify(openApiDocument(baseUrl))`. */
export function withServerUrl(artefact: string, baseUrl: string): string {
  // A replacer function, so `$&` and the like in a URL stay literal.
  return artefact.replace(JSON.stringify(SERVER_URL_PLACEHOLDER), () => JSON.stringify(baseUrl));
}
