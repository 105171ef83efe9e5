import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { FAMILIES } from '#contract/routes';
import { LAMBDA_BUNDLING } from '../lib/bundling.js';
import { median } from './load.js';

export type BundleFigure = { family: string; bytes: number; gzipBytes: number; coldImportMs: number };

/**
 * Bundles each family exactly as the stack does and times a cold import of
 * the bundle in a fresh Node process (median of `runs`).
 */
export async function measureBundles(runs = 5): Promise<BundleFigure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'customer-api-bundles-'));
  try {
    const figures: BundleFigure[] = [];
    for (const family of FAMILIES) {
      const outfile = join(dir, `${family}.mjs`);
      await build({
        entryPoints: [join('lambdas', family, 'handler.ts')],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: LAMBDA_BUNDLING.target,
        minify: LAMBDA_BUNDLING.minify,
        keepNames: LAMBDA_BUNDLING.keepNames,
        mainFields: LAMBDA_BUNDLING.mainFields,
        banner: { js: LAMBDA_BUNDLING.banner },
        logLevel: 'silent',
      });
      const times = Array.from({ length: runs }, () => coldImport(outfile));
      figures.push({
        family,
        bytes: statSync(outfile).size,
        gzipBytes: gzipSync(readFileSync(outfile)).length,
        coldImportMs: median(times),
      });
    }
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function coldImport(file: string): number {
  const script = `const t=performance.now();await import(${JSON.stringify(`file://${file}`)});process.stdout.write(String(performance.now()-t))`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, TABLE_NAME: 'bench', AWS_REGION: 'us-east-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  return Number(out.toString());
}
