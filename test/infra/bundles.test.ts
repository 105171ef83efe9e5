import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { FAMILIES } from '#contract/routes';
import { LAMBDA_BUNDLING } from '#lib/bundling';
import { WEBHOOK_FUNCTIONS } from '#lib/constructs/webhooks';

/**
 * Every function's bundle, built with the stack's preset (the stack tests
 * skip bundling to stay fast, so this is where a bundle that cannot build
 * shows), and what the light functions must not carry.
 */
async function bundle(entry: string): Promise<string[]> {
  const { metafile, errors } = await build({
    entryPoints: [`lambdas/${entry}`],
    outdir: '/tmp/customer-api-bundle-check',
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_BUNDLING.target,
    minify: LAMBDA_BUNDLING.minify,
    mainFields: LAMBDA_BUNDLING.mainFields,
    metafile: true,
    logLevel: 'silent',
  });
  expect(errors).toEqual([]);
  return Object.keys((metafile as Metafile).inputs);
}

const HEAVY = [/node_modules\/zod\/v4\/classic\//, /@aws-sdk\/client-sesv2\//, /@aws-sdk\/client-sqs\//];

describe('function bundles', () => {
  it.each(FAMILIES)('%s builds without the full zod, SES or SQS (it only reads DynamoDB)', async (family) => {
    const inputs = await bundle(`${family}/handler.ts`);
    expect(inputs.some((f) => f.includes('lambdas/platform/deps.ts'))).toBe(true);
    expect(inputs.filter((f) => HEAVY.some((p) => p.test(f)) && !(family === 'discovery' && f.includes('zod')))).toEqual([]);
  }, 30_000);

  it.each(['admin/handler.ts', ...Object.values(WEBHOOK_FUNCTIONS).map((f) => f.entry)])('%s builds', async (entry) => {
    expect(await bundle(entry)).toContainEqual(expect.stringContaining('lambdas/platform/messaging-deps.ts'));
  }, 30_000);
});
