import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_ARTEFACT } from '#contract/openapi-artefact';
import { openApiDocument } from '#contract/openapi';
import { FAMILIES } from '#contract/routes';
import { lambdaBuildOptions } from '#lib/bundling';
import { FUNCTIONS, WEBHOOK_FUNCTION_NAMES } from '#lib/functions';
import { writeOpenApiArtefact } from '#lib/openapi-artefact';

/**
 * Every function's bundle, built with the stack's esbuild preset (the
 * template-only stack tests skip bundling, so this is where a bundle that
 * cannot build shows), what the light functions must not carry, and the
 * discovery bundle serving the OpenAPI artefact shipped beside it.
 */
/** The bundle's inputs; written to `outfile` when given (else built in memory only). */
async function bundle(entry: string, outfile?: string): Promise<Metafile['outputs'][string]['inputs']> {
  const { metafile, errors } = await build({ ...lambdaBuildOptions(join('lambdas', entry), outfile ?? 'in-memory.mjs'), write: outfile !== undefined, metafile: true });
  expect(errors).toEqual([]);
  return Object.values(metafile.outputs)[0]!.inputs;
}

const HEAVY = [/node_modules\/zod\/v4\/classic\//, /@aws-sdk\/client-sesv2\//, /@aws-sdk\/client-sqs\//];

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'customer-api-bundles-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('function bundles', () => {
  it.each(FAMILIES)('%s builds without the full zod, SES or SQS (it only reads DynamoDB)', async (family) => {
    const inputs = Object.keys(await bundle(FUNCTIONS[family].entry));
    expect(inputs).toContainEqual(expect.stringContaining('lambdas/platform/deps.ts'));
    expect(inputs.filter((f) => HEAVY.some((p) => p.test(f)))).toEqual([]);
  }, 30_000);

  it.each([FUNCTIONS['admin-api'].entry, ...WEBHOOK_FUNCTION_NAMES.map((name) => FUNCTIONS[name].entry)])('%s builds', async (entry) => {
    expect(Object.keys(await bundle(entry))).toContainEqual(
      expect.stringContaining('lambdas/platform/messaging-deps.ts'),
    );
  }, 30_000);
});

describe('the discovery bundle', () => {
  let inputs: Metafile['outputs'][string]['inputs'];
  beforeAll(async () => {
    inputs = await bundle(join('discovery', 'handler.ts'), join(dir, 'index.mjs'));
    copyFileSync(writeOpenApiArtefact(), join(dir, OPENAPI_ARTEFACT));
  }, 60_000);

  it('carries neither zod (beyond zod/mini) nor the OpenAPI generator and the response schemas', () => {
    const zodBytes = Object.entries(inputs)
      .filter(([path]) => path.includes('node_modules/zod/'))
      .reduce((sum, [, input]) => sum + input.bytesInOutput, 0);
    expect(zodBytes).toBeLessThan(40 * 1024);
    const generator = Object.keys(inputs).filter((path) => /contract\/(openapi|webhook-openapi|schemas\/responses)\.ts$/.test(path));
    expect(generator).toEqual([]);
  });

  it('serves the document from the openapi.json beside it, byte for byte the generated one', () => {
    const script = `
      const { handler } = await import(${JSON.stringify(`file://${join(dir, 'index.mjs')}`)});
      const event = {
        httpMethod: 'GET', resource: '/v1/openapi.json', path: '/v1/openapi.json', pathParameters: null,
        headers: { Host: 'abc123.execute-api.eu-west-1.amazonaws.com', 'X-Forwarded-Proto': 'https' }, multiValueHeaders: {},
        queryStringParameters: null, multiValueQueryStringParameters: null, body: null, isBase64Encoded: false,
        stageVariables: null, requestContext: { requestId: 'r', path: '/dev/v1/openapi.json', stage: 'dev' },
      };
      const context = { functionName: 'f', awsRequestId: 'r', getRemainingTimeInMillis: () => 10000 };
      process.stdout.write(JSON.stringify(await handler(event, context)));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      // No OPENAPI_DOCUMENT_PATH: the default is the file beside the bundle.
      env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-1', TABLE_NAME: 'bundle-test', METRICS_DISABLED: 'true', AWS_LAMBDA_LOG_LEVEL: 'SILENT' },
    }).toString();
    const reply = JSON.parse(out.slice(out.indexOf('{"statusCode"')));
    expect(reply.statusCode).toBe(200);
    expect(reply.headers).toMatchObject({ 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'public, max-age=300' });
    expect(reply.body).toBe(JSON.stringify(openApiDocument('https://abc123.execute-api.eu-west-1.amazonaws.com/dev')));
  });
});
