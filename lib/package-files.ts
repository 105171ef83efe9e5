import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SPORTS_LOGO_DIR, SPORTS_LOGO_PACKAGE_DIR } from '#contract/assets';
import { OPENAPI_ARTEFACT } from '#contract/openapi-artefact';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { writeOpenApiArtefact } from './openapi-artefact.js';
import { ENV } from '#platform/config';

/** Files shipped beside a function's bundle (by their path in its package) and the environment that names them. */
export type PackageFiles = { files: Record<string, string>; environment: Record<string, string> };

const familyServing = (operation: string): string => ROUTES.find((r) => r.operation === operation)!.family;

/**
 * What a family reads from its package at run time instead of bundling: the OpenAPI artefact generated at synth
 * time (the generator, its converter and the response schemas stay out of the bundle; the function only fills in the server
 * URL) and the sports logos (no bucket and no S3 client for files that change only with a deploy).
 */
export function packageFilesOf(family: string): PackageFiles | null {
  if (family === familyServing('openapi')) {
    return { files: { [OPENAPI_ARTEFACT]: writeOpenApiArtefact() }, environment: { [ENV.openApiDocumentPath]: OPENAPI_ARTEFACT } };
  }
  if (family === familyServing('sportsLogo')) {
    const files = Object.fromEntries(
      readdirSync(SPORTS_LOGO_DIR).map((name) => [`${SPORTS_LOGO_PACKAGE_DIR}/${name}`, join(SPORTS_LOGO_DIR, name)]),
    );
    return { files, environment: { [ENV.sportsLogoDir]: SPORTS_LOGO_PACKAGE_DIR } };
  }
  return null;
}
