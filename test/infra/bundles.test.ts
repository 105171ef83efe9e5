import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPORTS_LOGO_DIR } from '#contract/assets';
import { openApiDocument } from '#lib/openapi';
import { FAMILIES, type Family } from '#contract/routes';
import { lambdaBuildOptions } from '#lib/bundling';
import { FUNCTIONS, WEBHOOK_FUNCTION_NAMES } from '#lib/functions';
import { packageFilesOf } from '#lib/package-files';
import { runProcess } from '../support/run-process.js';

/**
 * Every function's bundle, built with the stack's esbuild preset (the
 * template-only stack tests skip bundling, so this is where a bundle that
 * cannot build shows), what the light functions must not carry, and the
 * discovery and assets bundles serving the files shipped beside them.
 */
/** The bundle's inputs; written to `outfile` when given (else built in memory only). */
async function bundle(entry: string, outfile?: string): Promise<Metafile['outputs'][string]['inputs']> {
  const { metafile, errors } = await build({
    ...lambdaBuildOptions(join('lambdas', entry), outfile ?? 'in-memory.mjs'),
    write: outfile !== undefined,
    metafile: true,
  });
  expect(errors).toEqual([]);
  // The bundle's inputs, not its source map's (an output with none).
  return Object.entries(metafile.outputs).find(([file]) => !file.endsWith('.map'))![1].inputs;
}

/** The OpenAPI document's converter runs at synth time only. */
const CONVERTER = /node_modules\/@valibot\/to-json-schema\//;
const HEAVY = [
  CONVERTER,
  /@aws-sdk\/client-sesv2\//,
  /@aws-sdk\/client-sqs\//,
  /@aws-sdk\/client-s3\//,
  /@aws-sdk\/client-secrets-manager\//,
];

/** The npm packages a bundle's inputs come from. */
const packagesOf = (inputs: string[]) => new Set(inputs.flatMap((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1] ?? []));

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'customer-api-bundles-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('function bundles', () => {
  it.each(FAMILIES)('%s builds without the JSON Schema converter, SES or SQS (it only reads DynamoDB)', async (family) => {
    const inputs = Object.keys(await bundle(FUNCTIONS[family].entry));
    expect(inputs).toContainEqual(expect.stringContaining('lambdas/platform/deps.ts'));
    expect(inputs.filter((f) => HEAVY.some((p) => p.test(f)))).toEqual([]);
  });

  it("reads the origin secret with nothing the one-GetItem baseline does not carry already (the SDK's signer and credential chain)", async () => {
    const baseline = packagesOf(Object.keys(await bundle('../bench/baseline-handler.ts')));
    const reader = packagesOf(Object.keys(await bundle('platform/origin-secret.ts')));
    expect(reader).toContain('@smithy/signature-v4');
    expect([...reader].filter((name) => !baseline.has(name))).toEqual([]);
    const token = Object.keys(await bundle(FUNCTIONS.token.entry));
    expect(token).toContainEqual(expect.stringContaining('lambdas/platform/origin-secret.ts'));
  });

  it.each([FUNCTIONS['admin-api'].entry, FUNCTIONS['producer-api'].entry, ...WEBHOOK_FUNCTION_NAMES.map((name) => FUNCTIONS[name].entry)])(
    '%s builds, without the JSON Schema converter',
    async (entry) => {
      const inputs = Object.keys(await bundle(entry));
      expect(inputs).toContainEqual(expect.stringContaining('lambdas/platform/deps.ts'));
      expect(inputs.filter((f) => CONVERTER.test(f))).toEqual([]);
    },
  );

  it.each(['webhook-deliverer', 'webhook-sweeper'] as const)(
    '%s carries no zod (the dead letters it shares with the admin throw its errors, not its schemas)',
    async (name) => {
      const inputs = Object.keys(await bundle(FUNCTIONS[name].entry));
      expect(inputs.filter((f) => /node_modules\/zod\/|lambdas\/domain\/inputs\.ts$/.test(f))).toEqual([]);
    },
  );
});

/** Builds a family's handler into its own folder with the files the stack ships beside it (lib/package-files.ts). */
async function packaged(family: Family): Promise<{ folder: string; inputs: Metafile['outputs'][string]['inputs'] }> {
  const folder = join(dir, family);
  const inputs = await bundle(FUNCTIONS[family].entry, join(folder, 'index.mjs'));
  for (const [name, source] of Object.entries(packageFilesOf(family)?.files ?? {})) {
    mkdirSync(dirname(join(folder, name)), { recursive: true });
    copyFileSync(source, join(folder, name));
  }
  return { folder, inputs };
}

/** The packaged handler's reply to a GET of `path`, in a fresh node with none of the stack's file settings (the defaults: beside the bundle). */
async function invoke(
  folder: string,
  path: string,
): Promise<{ statusCode: number; headers: Record<string, string>; body: string; isBase64Encoded?: boolean }> {
  const script = `
    const { handler } = await import(${JSON.stringify(`file://${join(folder, 'index.mjs')}`)});
    const event = {
      httpMethod: 'GET', resource: '/', path: ${JSON.stringify(path)}, pathParameters: null,
      headers: { Host: 'abc123.execute-api.eu-west-1.amazonaws.com', 'X-Forwarded-Proto': 'https' }, multiValueHeaders: {},
      queryStringParameters: null, multiValueQueryStringParameters: null, body: null, isBase64Encoded: false,
      stageVariables: null, requestContext: { requestId: 'r', path: ${JSON.stringify(`/dev${path}`)}, stage: 'dev', domainName: 'abc123.execute-api.eu-west-1.amazonaws.com' },
    };
    const context = { functionName: 'f', awsRequestId: 'r', getRemainingTimeInMillis: () => 10000 };
    process.stdout.write(JSON.stringify(await handler(event, context)));`;
  const { stdout: out } = await runProcess(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      PATH: process.env.PATH,
      AWS_REGION: 'eu-west-1',
      TABLE_NAME: 'bundle-test',
      METRICS_DISABLED: 'true',
      AWS_LAMBDA_LOG_LEVEL: 'SILENT',
    },
  });
  return JSON.parse(out.slice(out.indexOf('{"statusCode"')));
}

describe('the discovery bundle', () => {
  let built: Awaited<ReturnType<typeof packaged>>;
  beforeAll(async () => {
    built = await packaged('discovery');
  });

  it('carries neither the OpenAPI generator nor its converter and the response schemas', () => {
    expect(Object.keys(built.inputs).filter((path) => CONVERTER.test(path))).toEqual([]);
    const generator = Object.keys(built.inputs).filter((path) => /contract\/(openapi|webhook-openapi|schemas\/responses)\.ts$/.test(path));
    expect(generator).toEqual([]);
  });

  it('serves the document from the openapi.json beside it, byte for byte the generated one', async () => {
    const reply = await invoke(built.folder, '/v1/openapi.json');
    expect(reply.statusCode).toBe(200);
    expect(reply.headers).toMatchObject({ 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'public, max-age=300' });
    expect(reply.body).toBe(JSON.stringify(openApiDocument('https://abc123.execute-api.eu-west-1.amazonaws.com/dev')));
  });
});

describe('the assets bundle', () => {
  let built: Awaited<ReturnType<typeof packaged>>;
  beforeAll(async () => {
    built = await packaged('assets');
  });

  it('serves the logos from the folder beside it, byte for byte, SVG as text and PNG as base64', async () => {
    const svg = await invoke(built.folder, '/v1/assets/sports-logo/nfl.svg');
    expect(svg.statusCode).toBe(200);
    expect(svg.headers['Content-Type']).toBe('image/svg+xml');
    expect(svg.body).toBe(readFileSync(join(SPORTS_LOGO_DIR, 'nfl.svg'), 'utf8'));
    const png = await invoke(built.folder, '/v1/assets/sports-logo/team-badge.png');
    expect(png).toMatchObject({ statusCode: 200, isBase64Encoded: true });
    expect(Buffer.from(png.body, 'base64').equals(readFileSync(join(SPORTS_LOGO_DIR, 'team-badge.png')))).toBe(true);
    expect((await invoke(built.folder, '/v1/assets/sports-logo/mlb.svg')).statusCode).toBe(404);
  });
});
