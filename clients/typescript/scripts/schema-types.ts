import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { openApiDocument } from '../../../lib/openapi.js';

/** The file `npm run kit:types` writes; the staleness test compares it with a fresh rendering. */
export const SCHEMA_TYPES_FILE = new URL('../src/schema.d.ts', import.meta.url);

/** The service's OpenAPI document rendered as openapi-typescript's types (the server URL appears in no type). */
export async function schemaTypes(): Promise<string> {
  const document = openApiDocument('https://api.example.com');
  return COMMENT_HEADER + astToString(await openapiTS(document as unknown as Parameters<typeof openapiTS>[0]));
}
