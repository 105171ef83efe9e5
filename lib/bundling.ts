/**
 * The one esbuild preset for Lambda bundles: the stack's NodejsFunction and
 * the benchmark's bundle measurements both use it, so the figures describe
 * what is deployed.
 */
export const LAMBDA_BUNDLING = {
  target: 'node22',
  minify: true,
  sourceMap: true,
  keepNames: true,
  mainFields: ['module', 'main'] as string[],
  // ESM bundles still contain CommonJS dependencies that call require().
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
};
