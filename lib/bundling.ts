import type { BuildOptions } from 'esbuild';

/**
 * The one esbuild preset for Lambda bundles: the stack's NodejsFunction and
 * the benchmark's bundle measurements both use it, so the figures describe
 * what is deployed.
 */
export const LAMBDA_BUNDLING = {
  // The functions' runtime is nodejs24.x (lib/constructs/service-function.ts): nothing is lowered for an older Node.
  target: 'node24',
  minify: true,
  // Linked maps for readable stack traces, without a copy of every source: --enable-source-maps needs only the mappings.
  sourceMap: true,
  sourcesContent: false,
  keepNames: true,
  mainFields: ['module', 'main'] as string[],
  // ESM bundles still contain CommonJS dependencies that call require().
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
};

/** Node's options in every function: stack traces through the source maps the preset ships. */
export const LAMBDA_NODE_OPTIONS = '--enable-source-maps';

/** esbuild's options for one function's bundle as NodejsFunction builds it with this preset (the bench and the bundle tests build with them). */
export function lambdaBuildOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_BUNDLING.target,
    minify: LAMBDA_BUNDLING.minify,
    sourcemap: LAMBDA_BUNDLING.sourceMap,
    sourcesContent: LAMBDA_BUNDLING.sourcesContent,
    keepNames: LAMBDA_BUNDLING.keepNames,
    mainFields: LAMBDA_BUNDLING.mainFields,
    banner: { js: LAMBDA_BUNDLING.banner },
    logLevel: 'silent',
  };
}
