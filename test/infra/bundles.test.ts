import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_ARTEFACT } from '#contract/openapi-artefact';
import { openApiDocument } from '#contract/openapi';
import { LAMBDA_BUNDLING } from '#lib/bundling';
import { writeOpenApiArtefact } from '#lib/openapi-artefact';

/** The discovery function's bundle, built with the stack's esbuild preset, and the artefact beside it as the stack ships it. */
let dir: string;
let inputs: Metafile['outputs'][string]['inputs'];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'customer-api-discovery-bundle-'));
  const result = await build({
    entryPoints: [join('lambdas', 'discovery', 'handler.ts')],
    outfile: join(dir, 'index.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_BUNDLING.target,
    minify: LAMBDA_BUNDLING.minify,
    keepNames: LAMBDA_BUNDLING.keepNames,
    mainFields: LAMBDA_BUNDLING.mainFields,
    banner: { js: LAMBDA_BUNDLING.banner },
    metafile: true,
    logLevel: 'silent',
  });
  inputs = Object.values(result.metafile.outputs)[0]!.inputs;
  copyFileSync(writeOpenApiArtefact(), join(dir, OPENAPI_ARTEFACT));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the discovery bundle', () => {
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
      env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-1', TABLE_NAME: 'bundle-test', POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'SILENT' },
    }).toString();
    const reply = JSON.parse(out.slice(out.indexOf('{"statusCode"')));
    expect(reply.statusCode).toBe(200);
    expect(reply.headers).toMatchObject({ 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'public, max-age=300' });
    expect(reply.body).toBe(JSON.stringify(openApiDocument('https://abc123.execute-api.eu-west-1.amazonaws.com/dev')));
  });
});
