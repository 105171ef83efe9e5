import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync, gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { FAMILIES } from '#contract/routes';
import { LAMBDA_NODE_OPTIONS, lambdaBuildOptions } from '#lib/bundling';
import { FUNCTIONS } from '../lib/functions.js';
import { median } from './load.js';

type BundleFigure = {
  name: string;
  entry: string;
  bytes: number;
  gzipBytes: number;
  mapBytes: number;
  zipBytes: number;
  coldImportMs: number;
};
/** A function's figures, with the baseline's cold import timed alternately beside its own (a neighbour's burst falls on both). */
type FunctionFigure = BundleFigure & { goal: number; baselineImportMs: number };

/**
 * Every function the stack deploys, from its one table (lib/functions.ts),
 * with the goal for its ratios: the /v1 families and the token endpoint sit
 * on the request path (≤ ×1.2), the admin API and the webhook functions do
 * not (≤ ×2).
 */
const FAMILY_SET = new Set<string>(FAMILIES);
const MEASURED = Object.entries(FUNCTIONS).map(([name, spec]) => ({
  name,
  entry: `lambdas/${spec.entry}`,
  goal: FAMILY_SET.has(name) ? 1.2 : 2,
}));
/** One GetItem through @aws-sdk/lib-dynamodb's document client, nothing else. */
const BASELINE = { name: 'baseline', entry: 'bench/baseline-handler.ts' };
const RUNS = Number(process.env.BENCH_IMPORT_RUNS ?? 7);

/**
 * Bundles each function exactly as the stack does (LAMBDA_BUNDLING, ESM, its
 * linked source map beside it) and times cold imports of the bundle in fresh
 * Node processes with the functions' NODE_OPTIONS, so the map is read (median of
 * `runs`), each beside a cold import of the baseline handler bundled the
 * same way, alternately, so each ratio compares imports timed together.
 */
async function measureBundles(runs = RUNS): Promise<{ baseline: BundleFigure; functions: FunctionFigure[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'customer-api-bundles-'));
  try {
    const bundle = async ({ name, entry }: { name: string; entry: string }) => {
      const outfile = join(dir, `${name}.mjs`);
      await build(lambdaBuildOptions(entry, outfile));
      const [code, map] = [readFileSync(outfile), readFileSync(`${outfile}.map`)];
      // The asset's zip holds both files, each deflated (its headers add some 100 bytes a file).
      const zipBytes = deflateRawSync(code, { level: 9 }).length + deflateRawSync(map, { level: 9 }).length;
      return { name, entry, outfile, bytes: statSync(outfile).size, gzipBytes: gzipSync(code).length, mapBytes: map.length, zipBytes };
    };
    const base = await bundle(BASELINE);
    const baselineTimes: number[] = [];
    const functions: FunctionFigure[] = [];
    for (const fn of MEASURED) {
      const { outfile, ...figure } = await bundle(fn);
      const own: number[] = [];
      const beside: number[] = [];
      for (let i = 0; i < runs; i++) {
        beside.push(coldImport(base.outfile));
        own.push(coldImport(outfile));
      }
      baselineTimes.push(...beside);
      functions.push({ ...figure, goal: fn.goal, coldImportMs: median(own), baselineImportMs: median(beside) });
    }
    const { outfile: _, ...baseline } = base;
    return { baseline: { ...baseline, coldImportMs: median(baselineTimes) }, functions };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchBundles(): Promise<string[]> {
  const { baseline, functions } = await measureBundles();
  const kib = (bytes: number) => (bytes / 1024).toLocaleString('en-US', { maximumFractionDigits: 0 });
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    `The stack's esbuild preset (lib/bundling.ts, ESM, minified, a linked source map without sources); zip = the asset's two files deflated; cold import = import() of the bundle in a fresh node ${process.version} ${LAMBDA_NODE_OPTIONS}, median of ${RUNS}, each function's alternating with the baseline's (its import ratio is to the baseline's median beside it).`,
    `Baseline: ${BASELINE.entry}, one GetItem through @aws-sdk/lib-dynamodb's document client.`,
    row([
      'function',
      'bundle KiB',
      'gzip KiB',
      'map KiB',
      'zip KiB',
      'size ÷ baseline',
      'cold import ms',
      'import ÷ baseline',
      'goal (both ratios)',
      'met',
    ]),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---']),
    row([
      baseline.name,
      kib(baseline.bytes),
      kib(baseline.gzipBytes),
      kib(baseline.mapBytes),
      kib(baseline.zipBytes),
      '×1.000',
      baseline.coldImportMs.toFixed(0),
      '×1.00',
      '',
      '',
    ]),
    ...functions.map((f) =>
      row([
        f.name,
        kib(f.bytes),
        kib(f.gzipBytes),
        kib(f.mapBytes),
        kib(f.zipBytes),
        // Three decimals for size: it is exact, and ×1.204 must not print as a met ×1.20.
        `×${(f.bytes / baseline.bytes).toFixed(3)}`,
        f.coldImportMs.toFixed(0),
        `×${(f.coldImportMs / f.baselineImportMs).toFixed(2)}`,
        `≤ ×${f.goal}`,
        f.bytes <= f.goal * baseline.bytes && f.coldImportMs <= f.goal * f.baselineImportMs ? 'yes' : 'no',
      ]),
    ),
  ];
}

function coldImport(file: string): number {
  const script = `const t=performance.now();await import(${JSON.stringify(`file://${file}`)});process.stdout.write(String(performance.now()-t))`;
  const out = execFileSync(process.execPath, [LAMBDA_NODE_OPTIONS, '--input-type=module', '-e', script], {
    env: { ...process.env, TABLE_NAME: 'bench', AWS_REGION: 'us-east-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  return Number(out.toString());
}
