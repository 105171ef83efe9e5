import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The command-line entries the suites start as processes, by name: `npm run admin` and `npm run listen`. */
export const ENTRIES = { admin: 'bin/admin.ts', listen: 'bin/listen.ts' } as const;

/** The variable that names the folder of this run's bundles; a fork reads it through `entryBundle`. */
const VARIABLE = 'CUSTOMER_API_TEST_BUNDLES';

/** Each module keeps its own file's URL, so what it finds beside itself (fixtures, assets) is found from the bundle too. */
const sourceUrls: Plugin = {
  name: 'source-urls',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, ({ path }) => ({
      contents: readFileSync(path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href)),
      loader: 'ts',
    }));
  },
};

/**
 * Global setup: the CLI entries bundled once per run, as the functions are for Lambda. The suites start hundreds of
 * CLI processes; under tsx each one compiles its whole import graph again (1.3 CPU-s for `groups list`), a bundle
 * loads in half that. The same source, the same packages (left external, resolved from the repository's
 * node_modules, which is why the folder sits there); `npm run admin` itself is run as pasted by the snippets suite.
 */
export default async function entryBundles(): Promise<(() => void) | undefined> {
  if (process.env[VARIABLE]) return undefined;
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'customer-api-entries-'));
  await build({
    entryPoints: Object.entries(ENTRIES).map(([out, entry]) => ({ in: join(ROOT, entry), out })),
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    packages: 'external',
    plugins: [sourceUrls],
    logLevel: 'warning',
  });
  process.env[VARIABLE] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}

/** The arguments that run entry `name` with Node: its bundle of this run. */
export function entryBundle(name: keyof typeof ENTRIES): string {
  const dir = process.env[VARIABLE];
  if (!dir) throw new Error(`${VARIABLE} is unset: the suites run under vitest.config.ts, whose global setup bundles ${ENTRIES[name]}`);
  return join(dir, `${name}.mjs`);
}
