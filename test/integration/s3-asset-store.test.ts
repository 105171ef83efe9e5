import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPORTS_LOGO_DIR, SPORTS_LOGO_PREFIX } from '#contract/assets';
import { folderAssetStore } from '#lambdas/assets/asset-store';
import { s3AssetStore } from '#lambdas/assets/s3-asset-store';
import { startEngines, type Engines } from '#lib/local/engines';

/** The S3 adapter against fauxqs, the local runtime's engine (it answers S3 on the same endpoint as SQS). */

const BUCKET = 'customer-api-assets';
let engines: Engines;
let client: S3Client;
/** GetObject requests that left the client: proves which names reach S3 at all. */
const requested: string[] = [];

const logo = (name: string) => readFileSync(join(SPORTS_LOGO_DIR, name));
const put = (key: string, body: Buffer | string, contentType = 'application/octet-stream') =>
  client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body, ContentType: contentType }));
const store = () => s3AssetStore({ client, bucket: BUCKET, prefix: SPORTS_LOGO_PREFIX });

beforeAll(async () => {
  engines = await startEngines({ dataDir: null });
  client = new S3Client({
    endpoint: engines.sqsEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    forcePathStyle: true,
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'GetObjectCommand') requested.push((args.input as { Key: string }).Key);
      return next(args);
    },
    { step: 'initialize', name: 'recordGetObject' },
  );
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  // Stored with a misleading type: the store must take the type from the name.
  await put(`${SPORTS_LOGO_PREFIX}nfl.svg`, logo('nfl.svg'), 'text/html');
  await put(`${SPORTS_LOGO_PREFIX}team-badge.png`, logo('team-badge.png'));
});
afterAll(async () => {
  client?.destroy();
  await engines?.stop();
});

describe('s3AssetStore', () => {
  it('serves an SVG and a PNG byte for byte, typed by extension, with the ETag the folder store gives', async () => {
    const folder = folderAssetStore(SPORTS_LOGO_DIR);
    for (const [name, type] of [
      ['nfl.svg', 'image/svg+xml'],
      ['team-badge.png', 'image/png'],
    ] as const) {
      const asset = await store().get(name);
      expect(asset?.contentType, name).toBe(type);
      expect(asset?.body.equals(logo(name)), name).toBe(true);
      expect(asset?.etag, name).toMatch(/^"[0-9a-f]{32}"$/);
      expect(asset?.etag, name).toBe((await folder.get(name))?.etag);
    }
  });

  it('gives the same ETag in every process (a fresh store) and reads each found object once', async () => {
    const first = store();
    const etag = (await first.get('team-badge.png'))!.etag;
    expect((await store().get('team-badge.png'))!.etag).toBe(etag);

    requested.length = 0;
    const again = await first.get('team-badge.png');
    expect(again?.etag).toBe(etag);
    expect(requested).toEqual([]);
  });

  it('answers null for a missing logo without remembering the miss', async () => {
    const assets = store();
    expect(await assets.get('mlb.svg')).toBeNull();
    await put(`${SPORTS_LOGO_PREFIX}mlb.svg`, '<svg xmlns="http://www.w3.org/2000/svg"/>');
    expect((await assets.get('mlb.svg'))?.contentType).toBe('image/svg+xml');
    await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: `${SPORTS_LOGO_PREFIX}mlb.svg` }));
  });

  it('never sends a name outside the pattern to S3, even where an object would answer', async () => {
    const bad = ['../secret.svg', '..%2Fsecret.svg', 'NFL.svg', 'nfl.gif', 'nfl', '.svg', 'a/b.svg', 'nfl.svg\u0000.png', ''];
    await put('secret.svg', '<svg/>');
    for (const name of bad) await put(`${SPORTS_LOGO_PREFIX}${name}`, '<svg/>');
    requested.length = 0;
    const assets = store();
    for (const name of bad) expect(await assets.get(name), JSON.stringify(name)).toBeNull();
    expect(requested).toEqual([]);
  });

  it('lets other S3 errors through instead of calling them a missing logo', async () => {
    const elsewhere = s3AssetStore({ client, bucket: 'no-such-bucket', prefix: SPORTS_LOGO_PREFIX });
    await expect(elsewhere.get('nfl.svg')).rejects.toMatchObject({ name: 'NoSuchBucket' });
  });
});
