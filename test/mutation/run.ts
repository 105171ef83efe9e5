/**
 * `npm run mutation [-- <room name>...]`: Stryker over the rooms' files (test/mutation/rooms.ts) with the
 * unit tests, once for every room asked for (all by default), then the JSON report split per room. Exits
 * non-zero when any room scores under MIN_SCORE (killed and timed-out mutants over all mutants).
 */
import { globSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { Stryker } from '@stryker-mutator/core';
import { MIN_SCORE, ROOMS } from './rooms.js';

const root = resolve(import.meta.dirname, '../..');
process.chdir(root);

const asked = process.argv.slice(2);
for (const name of asked) if (!(name in ROOMS)) throw new Error(`no room named "${name}"; rooms: ${Object.keys(ROOMS).join(', ')}`);
const rooms = Object.entries(ROOMS).filter(([name]) => asked.length === 0 || asked.includes(name));

// Each file belongs to one room; a glob that matches nothing is a moved file the map has not followed.
const roomOf = new Map<string, string>();
for (const [name, globs] of rooms) {
  for (const glob of globs) {
    const files = globSync(glob, { cwd: root });
    if (files.length === 0) throw new Error(`room "${name}": ${glob} matches no file`);
    for (const file of files) {
      const other = roomOf.get(file);
      if (other && other !== name) throw new Error(`${file} is in rooms "${other}" and "${name}"`);
      roomOf.set(file, name);
    }
  }
}

const reportFile = join(root, 'test-results/mutation/report.json');
// The sandbox lives outside the work tree: others edit it while a run goes on, and the copy is taken once.
const tempDir = mkdtempSync(join(tmpdir(), 'customer-api-stryker-'));
const started = Date.now();
try {
  await new Stryker({
    testRunner: 'vitest',
    vitest: { configFile: 'test/mutation/vitest.config.ts', related: true, pool: 'forks' },
    coverageAnalysis: 'perTest',
    mutate: [...roomOf.keys()],
    // The machine has two cores and is shared.
    concurrency: 2,
    reporters: ['json', 'progress'],
    jsonReporter: { fileName: relative(root, reportFile) },
    tempDirName: tempDir,
    cleanTempDir: 'always',
    // The sandbox leaves out what the unit tests never read; others' editors leave temporary files that
    // vanish mid-copy.
    ignorePatterns: [
      '/.data',
      '/.local',
      '/cdk.out',
      '/coverage',
      '/test-results',
      '/docs',
      '/test/e2e',
      '/test/integration',
      '/test/infra',
      '/test/browser',
      '*.tmp',
      '*~',
    ],
    incremental: false,
    thresholds: { high: 90, low: 80, break: null },
    timeoutMS: 10_000,
  }).runMutationTest();
} finally {
  rmSync(tempDir, { recursive: true, force: true });
}
const seconds = Math.round((Date.now() - started) / 1000);

type Mutant = {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number } };
};
const report = JSON.parse(readFileSync(reportFile, 'utf8')) as { files: Record<string, { source: string; mutants: Mutant[] }> };

type Tally = { mutants: number; killed: number; timeout: number; survived: number; noCoverage: number; errors: number };
const tallies = new Map<string, Tally>(
  rooms.map(([name]) => [name, { mutants: 0, killed: 0, timeout: 0, survived: 0, noCoverage: 0, errors: 0 }]),
);
const survivors: string[] = [];
for (const [file, { source, mutants }] of Object.entries(report.files)) {
  const name = roomOf.get(relative(root, resolve(root, file)));
  if (!name) throw new Error(`the report holds ${file}, which no room names`);
  const t = tallies.get(name)!;
  const lines = source.split('\n');
  for (const m of mutants) {
    if (m.status === 'Ignored') continue;
    t.mutants++;
    if (m.status === 'Killed') t.killed++;
    else if (m.status === 'Timeout') t.timeout++;
    else if (m.status === 'Survived') t.survived++;
    else if (m.status === 'NoCoverage') t.noCoverage++;
    else t.errors++; // CompileError, RuntimeError: not a kill, so they count against the score
    if (m.status === 'Survived' || m.status === 'NoCoverage') {
      const line = m.location.start.line;
      survivors.push(
        `${file}:${line}:${m.location.start.column} ${m.status} ${m.mutatorName} → ${JSON.stringify(m.replacement ?? '')}   | ${lines[line - 1]!.trim().slice(0, 100)}`,
      );
    }
  }
}

const score = (t: Tally) => (t.mutants === 0 ? 1 : (t.killed + t.timeout) / t.mutants);
const rows = [...tallies].map(([name, t]) => [
  name,
  t.mutants,
  t.killed,
  t.timeout,
  t.survived,
  t.noCoverage,
  t.errors,
  `${(score(t) * 100).toFixed(1)} %`,
  score(t) >= MIN_SCORE ? 'ok' : 'UNDER',
]);
const head = ['room', 'mutants', 'killed', 'timeouts', 'survived', 'no coverage', 'errors', 'score', `≥ ${MIN_SCORE * 100} %`];
const widths = head.map((h, i) => Math.max(String(h).length, ...rows.map((r) => String(r[i]).length)));
const line = (cells: unknown[]) => `| ${cells.map((c, i) => String(c).padEnd(widths[i]!)).join(' | ')} |`;
console.log('');
if (survivors.length) console.log(`Survived or not covered:\n${survivors.map((s) => `  ${s}`).join('\n')}\n`);
console.log(line(head));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const r of rows) console.log(line(r));
console.log(`\nrun time ${Math.floor(seconds / 60)} min ${seconds % 60} s; report ${relative(root, reportFile)}`);

const under = rows.filter((r) => r[8] !== 'ok').map((r) => r[0]);
if (under.length) {
  console.error(`under ${MIN_SCORE * 100} %: ${under.join(', ')}`);
  process.exit(1);
}
