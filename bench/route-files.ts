import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * How many files adding a /v1 route touches (`npm run route-files`): copies the working tree (tracked and new files,
 * node_modules linked) to a temporary directory, adds a throwaway GET route to the orderboard family there in the
 * fewest files that make it whole, runs the checks that catch a half-added route, and prints the files it changed and
 * whether the checks passed. The kit's types, generated from the OpenAPI document, are regenerated and not counted.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const GENERATED = 'clients/typescript/src/schema.d.ts';
/** `npm run kit:types`'s program, which writes them. */
const KIT_TYPES = join('clients', 'typescript', 'scripts', 'write-schema-types.ts');

/** Each edit: a file, the text it must hold once, and what goes right after that text. */
const EDITS: { file: string; after: string; insert: string }[] = [
  {
    // The row: every fact of the route.
    file: 'lambdas/orderboard/routes.ts',
    after: "    response: 'orderboardData',\n  },\n",
    insert: `  {
    method: 'GET',
    path: '/v1/{group_id}/{location_id}/orderboard/queue',
    operation: 'orderboardQueue',
    scope: 'orderboard:read',
    summary: 'The order queue of a location (a throwaway route)',
    mix: 1,
    response: 'orderboardQueueData',
  },
`,
  },
  {
    // Its response schema, in the family's schema module.
    file: 'lambdas/orderboard/schemas.ts',
    after: '  message: v.string(),\n});\n',
    insert: '\nexport const orderboardQueueData = v.object({ location: locationRef, refresh, orders: v.array(v.string()) });\n',
  },
  {
    // Its operation, in the family's function.
    file: 'lambdas/orderboard/orderboard.ts',
    after: 'export const operations: Operations<typeof ORDERBOARD_ROUTES> = {\n',
    insert: `  orderboardQueue: {
    async run(req) {
      return ok(req, { location: locationRefOf(req.location), refresh: ORDERBOARD_REFRESH, orders: [] });
    },
  },
`,
  },
  {
    // Its test: the route table's own, which holds the routes beyond the contract's table by name.
    file: 'test/unit/routes.test.ts',
    after: "['GET /v1/openapi.json'",
    insert: ", 'GET /v1/{group_id}/{location_id}/orderboard/queue'",
  },
];

/** The checks that guard route facts: types, the route table, facts spelled once, the OpenAPI document, the docs, the rooms. */
const CHECKS: string[][] = [
  ['tsc', '--noEmit'],
  [
    'vitest',
    'run',
    'test/unit/routes.test.ts',
    'test/unit/facts-once.test.ts',
    'test/unit/openapi-equivalence.test.ts',
    'test/unit/openapi-lint.test.ts',
    'test/unit/openapi-artefact.test.ts',
    'test/unit/docs-links.test.ts',
    'test/unit/layout.test.ts',
    'clients/typescript/test/schema-types.test.ts',
  ],
];

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=route-files', '-c', 'user.email=route-files@localhost', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

const dir = mkdtempSync(join(tmpdir(), 'customer-api-route-files-'));
try {
  const files = git(ROOT, 'ls-files', '-z', '--cached', '--others', '--exclude-standard').split('\0').filter(Boolean);
  for (const file of files) cpSync(join(ROOT, file), join(dir, file), { recursive: true, verbatimSymlinks: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'before');

  for (const { file, after, insert } of EDITS) {
    const text = readFileSync(join(dir, file), 'utf8');
    if (text.split(after).length !== 2) throw new Error(`${file}: the text to insert after is not there exactly once`);
    writeFileSync(join(dir, file), text.replace(after, `${after}${insert}`));
  }
  // vite-node, as vitest resolves the kit's script's #lib import (plain Node looks in the kit's own package.json).
  execFileSync('npx', ['vite-node', KIT_TYPES], { cwd: dir, stdio: 'pipe' });

  const changed = git(dir, 'status', '--porcelain').trimEnd().split('\n');
  const counted = changed.filter((line) => !line.endsWith(GENERATED));
  console.log(`Files a new GET route touched (${counted.length}; generated, not counted: ${GENERATED}):`);
  for (const line of changed) console.log(`  ${line}`);
  let passed = true;
  for (const check of CHECKS) {
    const run = spawnSync('npx', check, {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NODE_EXTRA_CA_CERTS: 'test/fixtures/tls/ca.pem' },
    });
    const ok = run.status === 0;
    passed &&= ok;
    console.log(`${ok ? 'passed' : 'FAILED'}: ${check.join(' ')}`);
    if (!ok) console.log(`${run.stdout}${run.stderr}`.split('\n').slice(-40).join('\n'));
  }
  console.log(passed ? 'The route is whole: every check passed.' : 'A check failed.');
  process.exitCode = passed ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
