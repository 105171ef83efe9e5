import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { FAMILIES } from '#contract/routes';
import { LAMBDA_BUNDLING } from '../lib/bundling.js';
import { median } from './load.js';

export type BundleFigure = { name: string; entry: string; bytes: number; gzipBytes: number; coldImportMs: number };

/** Every function the stack deploys, by its entry below the repository root (lib/stack.ts, lib/constructs/webhooks.ts). */
const FUNCTIONS: { name: string; entry: string; goal: number }[] = [
  // The /v1 families and the token endpoint: the latency-critical functions.
  ...FAMILIES.map((family) => ({ name: family, entry: `lambdas/${family}/handler.ts`, goal: 1.2 })),
  // Admin API and the webhook functions: off the request path.
  { name: 'admin-api', entry: 'lambdas/admin/handler.ts', goal: 2 },
  { name: 'webhook-dispatcher', entry: 'lambdas/webhooks/dispatcher.ts', goal: 2 },
  { name: 'webhook-deliverer', entry: 'lambdas/webhooks/deliverer.ts', goal: 2 },
  { name: 'webhook-sweeper', entry: 'lambdas/webhooks/sweeper.ts', goal: 2 },
];
/** One GetItem through @aws-sdk/lib-dynamodb's document client, nothing else. */
const BASELINE = { name: 'baseline', entry: 'bench/baseline-handler.ts' };
const RUNS = Number(process.env.BENCH_IMPORT_RUNS ?? 5);

/**
 * Bundles each function exactly as the stack does (LAMBDA_BUNDLING, ESM) and
 * times a cold import of the bundle in a fresh Node process (median of
 * `runs`), beside the baseline handler bundled and imported the same way.
 */
export async function measureBundles(runs = RUNS): Promise<{ baseline: BundleFigure; functions: (BundleFigure & { goal: number })[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'customer-api-bundles-'));
  try {
    const measure = async ({ name, entry }: { name: string; entry: string }): Promise<BundleFigure> => {
      const outfile = join(dir, `${name}.mjs`);
      await build({
        entryPoints: [entry],
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
      return { name, entry, bytes: statSync(outfile).size, gzipBytes: gzipSync(readFileSync(outfile)).length, coldImportMs: median(times) };
    };
    const baseline = await measure(BASELINE);
    const functions = [];
    for (const fn of FUNCTIONS) functions.push({ ...(await measure(fn)), goal: fn.goal });
    return { baseline, functions };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchBundles(): Promise<string[]> {
  const { baseline, functions } = await measureBundles();
  const kib = (bytes: number) => (bytes / 1024).toLocaleString('en-US', { maximumFractionDigits: 0 });
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    `The stack's esbuild preset (lib/bundling.ts, ESM, minified); cold import = import() of the bundle in a fresh node ${process.version}, median of ${RUNS}.`,
    `Baseline: ${BASELINE.entry}, one GetItem through @aws-sdk/lib-dynamodb's document client.`,
    row(['function', 'bundle KiB', 'gzip KiB', 'size ÷ baseline', 'cold import ms', 'import ÷ baseline', 'goal (both ratios)']),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:']),
    row([baseline.name, kib(baseline.bytes), kib(baseline.gzipBytes), '×1.00', baseline.coldImportMs.toFixed(0), '×1.00', '']),
    ...functions.map((f) =>
      row([
        f.name,
        kib(f.bytes),
        kib(f.gzipBytes),
        `×${(f.bytes / baseline.bytes).toFixed(2)}`,
        f.coldImportMs.toFixed(0),
        `×${(f.coldImportMs / baseline.coldImportMs).toFixed(2)}`,
        `≤ ×${f.goal}`,
      ]),
    ),
  ];
}

function coldImport(file: string): number {
  const script = `const t=performance.now();await import(${JSON.stringify(`file://${file}`)});process.stdout.write(String(performance.now()-t))`;
  // As Lambda starts it: without the local runtime's X-Ray manual mode (lib/local/tracing-off.ts), which this process may have set.
  const { AWS_XRAY_MANUAL_MODE: _local, ...env } = process.env;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...env, TABLE_NAME: 'bench', AWS_REGION: 'us-east-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  return Number(out.toString());
}
