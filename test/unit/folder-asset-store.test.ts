import { copyFileSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SPORTS_LOGO_DIR } from '#contract/assets';
import { folderAssetStore } from '#lambdas/assets/asset-store';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'customer-api-logos-'));
  for (const name of ['nfl.svg', 'team-badge.png']) copyFileSync(join(SPORTS_LOGO_DIR, name), join(dir, name));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('folderAssetStore', () => {
  it('serves an SVG and a PNG byte for byte, typed by extension, with the same strong ETag in every store', async () => {
    for (const [name, type] of [
      ['nfl.svg', 'image/svg+xml'],
      ['team-badge.png', 'image/png'],
    ] as const) {
      const asset = await folderAssetStore(dir).get(name);
      expect(asset?.contentType, name).toBe(type);
      expect(asset?.body.equals(readFileSync(join(SPORTS_LOGO_DIR, name))), name).toBe(true);
      expect(asset?.etag, name).toMatch(/^"[0-9a-f]{32}"$/);
      expect((await folderAssetStore(dir).get(name))?.etag, name).toBe(asset?.etag);
    }
  });

  it('reads a file once per process: served from memory after the disk changed', async () => {
    const assets = folderAssetStore(dir);
    const first = await assets.get('nfl.svg');
    unlinkSync(join(dir, 'nfl.svg'));
    expect(await assets.get('nfl.svg')).toEqual(first);
  });

  it('answers null for names the folder does not list, and never reads a name outside the pattern', async () => {
    const bad = ['../secret.svg', 'NFL.svg', 'nfl.gif', 'nfl', '.svg', 'a/b.svg', 'nfl.svg\u0000.png', ''];
    writeFileSync(join(dir, 'NFL.svg'), '<svg/>');
    writeFileSync(join(dir, 'nfl.gif'), 'GIF89a');
    const assets = folderAssetStore(dir);
    for (const name of bad) expect(await assets.get(name), JSON.stringify(name)).toBeNull();
    expect(await assets.get('mlb.svg')).toBeNull();
  });

  it('lists the folder once: a file added later is not served (the package changes only with a deploy)', async () => {
    const assets = folderAssetStore(dir);
    expect(await assets.get('mlb.svg')).toBeNull();
    writeFileSync(join(dir, 'mlb.svg'), '<svg/>');
    expect(await assets.get('mlb.svg')).toBeNull();
    expect((await folderAssetStore(dir).get('mlb.svg'))?.contentType).toBe('image/svg+xml');
  });

  it('fails loudly when the folder is missing rather than calling every logo unknown', async () => {
    await expect(folderAssetStore(join(dir, 'absent')).get('nfl.svg')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
