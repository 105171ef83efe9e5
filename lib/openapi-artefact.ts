import { createHash } from 'node:crypto';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApiArtefact } from './openapi.js';

/**
 * Writes the OpenAPI artefact (contract/openapi-artefact.ts) to the system's temporary folder and returns its path:
 * the stack copies it beside the discovery bundle, the local runtime points OPENAPI_DOCUMENT_PATH at it. The name is
 * the content's hash, so runs with the same document share one file and a change never overwrites one being read.
 */
export function writeOpenApiArtefact(dir: string = tmpdir()): string {
  const text = openApiArtefact();
  const path = join(dir, `customer-api-openapi-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.json`);
  if (!existsSync(path)) {
    // Written aside and renamed: a concurrent synth or runtime never copies a half-written file.
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, text);
    renameSync(partial, path);
  }
  return path;
}
