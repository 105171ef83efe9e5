/**
 * `npm run mutants [-- <mutant name>...]`: named mutants of rules that only the integration and e2e tests
 * reach. Each breaks one rule in a scratch worktree of HEAD; the tests named for it must then fail, on
 * dynalite and on DynamoDB Local alike. Exits 1 when a mutant survives, when a search text is not found
 * exactly once (the code moved: update the list), or when the named tests fail or select nothing on the
 * unmutated tree (a kill would then prove nothing).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { MUTANTS, type NamedMutant } from './named-mutants-list.js';

const root = resolve(import.meta.dirname, '../..');
/** vitest's projects (vitest.config.ts): one per engine. */
const ENGINES = ['dynalite', 'dynamodb-local'] as const;
type Engine = (typeof ENGINES)[number];
/** A run of the named tests that outlasts this is stopped and counted as not passing. */
const RUN_LIMIT_MS = 15 * 60_000;

const asked = process.argv.slice(2);
for (const name of asked)
  if (!MUTANTS.some((m) => m.name === name))
    throw new Error(`no mutant named "${name}"; mutants: ${MUTANTS.map((m) => m.name).join(', ')}`);
const mutants = MUTANTS.filter((m) => asked.length === 0 || asked.includes(m.name));

function git(args: string[], cwd = root): string {
  // Others commit in this repository at the same time: a held index lock is waited out.
  for (let attempt = 0; ; attempt++) {
    const run = spawnSync('git', args, { cwd, encoding: 'utf8' });
    if (run.status === 0) return run.stdout;
    if (!/index\.lock/.test(run.stderr) || attempt >= 10) throw new Error(`git ${args.join(' ')}: ${run.stderr.trim()}`);
    spawnSync('sleep', ['2']);
  }
}

/** Every edit's search text must occur exactly once in HEAD's file, or the list no longer says what it breaks. */
function checkEdits(scratch: string, mutant: NamedMutant): void {
  for (const edit of mutant.edits) {
    const text = readFileSync(join(scratch, edit.file), 'utf8');
    const count = text.split(edit.search).length - 1;
    if (count !== 1)
      throw new Error(`mutant "${mutant.name}": ${edit.file} holds its search text ${count} times, not once:\n${edit.search}`);
  }
}

type Run = { verdict: 'passed' | 'failed' | 'error'; failing: string[]; ran: number; note: string };

/** The named tests on one engine, read from vitest's JSON report. */
async function runTests(scratch: string, engine: Engine, files: readonly string[], pattern: string, tag: string): Promise<Run> {
  const report = join(scratch, `.mutant-${tag}.json`);
  rmSync(report, { force: true });
  const args = [
    'vitest',
    'run',
    ...files,
    '--project',
    engine,
    '-t',
    pattern,
    '--reporter=json',
    `--outputFile=${report}`,
    '--reporter=dot',
  ];
  const log = join(tmpdir(), `customer-api-mutant-${tag}.log`);
  const child = spawn('npx', args, {
    cwd: scratch,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NODE_EXTRA_CA_CERTS: 'test/fixtures/tls/ca.pem',
      PATH: `${join(scratch, 'node_modules/.bin')}:${process.env.PATH}`,
    },
  });
  let output = '';
  child.stdout.on('data', (b) => (output += b));
  child.stderr.on('data', (b) => (output += b));
  let overran = false;
  const limit = setTimeout(() => {
    overran = true;
    process.kill(-child.pid!, 'SIGKILL');
  }, RUN_LIMIT_MS);
  const code = await new Promise<number>((done) => child.once('exit', (c) => done(c ?? 1)));
  clearTimeout(limit);
  writeFileSync(log, output);
  if (overran) return { verdict: 'failed', failing: [], ran: 0, note: `stopped after ${RUN_LIMIT_MS / 60_000} min; log ${log}` };
  if (!existsSync(report)) return { verdict: 'error', failing: [], ran: 0, note: `no report (exit ${code}); log ${log}` };
  type Assertion = { fullName: string; status: string };
  const json = JSON.parse(readFileSync(report, 'utf8')) as {
    testResults: { name: string; status: string; message?: string; assertionResults: Assertion[] }[];
  };
  const assertions = json.testResults.flatMap((f) => f.assertionResults);
  const failing = assertions.filter((a) => a.status === 'failed').map((a) => a.fullName);
  // A file that failed outside any test (its setup threw) fails the run as well.
  const broken = json.testResults.filter((f) => f.status === 'failed' && f.assertionResults.every((a) => a.status !== 'failed'));
  failing.push(
    ...broken.map((f) => `${f.name.replace(`${scratch}/`, '')} (outside a test: ${(f.message ?? '').split('\n')[0]!.slice(0, 120)})`),
  );
  const ran = assertions.filter((a) => a.status === 'passed' || a.status === 'failed').length;
  if (failing.length) return { verdict: 'failed', failing, ran, note: '' };
  if (code !== 0) return { verdict: 'error', failing, ran, note: `exit ${code} with no failing test; log ${log}` };
  return { verdict: 'passed', failing, ran, note: '' };
}

const started = Date.now();
const scratch = mkdtempSync(join(tmpdir(), 'customer-api-mutants-'));
rmSync(scratch, { recursive: true });
const head = git(['rev-parse', '--short', 'HEAD']).trim();
git(['worktree', 'add', '--detach', scratch, 'HEAD']);
const cleanUp = () => {
  try {
    git(['worktree', 'remove', '--force', scratch]);
  } catch {
    rmSync(scratch, { recursive: true, force: true });
    git(['worktree', 'prune']);
  }
};
process.once('SIGINT', () => {
  cleanUp();
  process.exit(130);
});

type Row = { mutant: string; engine: Engine; result: string; failing: string[] };
const rows: Row[] = [];
let broken = false;
try {
  symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'));
  for (const mutant of mutants) checkEdits(scratch, mutant);

  // The named tests must pass unmutated, and select at least one test, before a failure means a kill.
  const baselines = new Map<string, boolean>();
  for (const mutant of mutants) {
    const key = `${mutant.tests.join(' ')} -t ${mutant.names}`;
    if (!baselines.has(key)) {
      let ok = true;
      for (const engine of ENGINES) {
        const run = await runTests(
          scratch,
          engine,
          mutant.tests,
          mutant.names,
          `baseline-${baselines.size}-${engine === 'dynalite' ? 'd' : 'l'}`,
        );
        const passes = run.verdict === 'passed' && run.ran > 0;
        console.log(
          `baseline  ${key} on ${engine}: ${passes ? `${run.ran} tests pass` : `NOT USABLE (${run.verdict}, ${run.ran} ran) ${run.failing.join('; ')} ${run.note}`}`,
        );
        ok &&= passes;
      }
      baselines.set(key, ok);
    }
    if (!baselines.get(key)) {
      broken = true;
      for (const engine of ENGINES)
        rows.push({ mutant: mutant.name, engine, result: 'not judged: the named tests do not pass unmutated', failing: [] });
    }
  }

  for (const mutant of mutants) {
    if (rows.some((r) => r.mutant === mutant.name)) continue;
    const originals = new Map(mutant.edits.map((e) => [e.file, readFileSync(join(scratch, e.file), 'utf8')]));
    for (const edit of mutant.edits) {
      const path = join(scratch, edit.file);
      writeFileSync(
        path,
        readFileSync(path, 'utf8').replace(edit.search, () => edit.replace),
      );
    }
    try {
      for (const engine of ENGINES) {
        const run = await runTests(
          scratch,
          engine,
          mutant.tests,
          mutant.names,
          `${mutants.indexOf(mutant)}-${engine === 'dynalite' ? 'd' : 'l'}`,
        );
        const result =
          run.verdict === 'failed'
            ? `killed${run.note ? ` (${run.note})` : ''}`
            : run.verdict === 'passed'
              ? 'SURVIVED'
              : `ERROR: ${run.note}`;
        console.log(`mutant    ${mutant.name} on ${engine}: ${result}${run.failing.length ? `, ${run.failing.length} failing` : ''}`);
        rows.push({ mutant: mutant.name, engine, result, failing: run.failing });
      }
    } finally {
      for (const [file, text] of originals) writeFileSync(join(scratch, file), text);
    }
  }
} finally {
  cleanUp();
}

const seconds = Math.round((Date.now() - started) / 1000);
console.log(`\nNamed mutants on ${head} (${Math.floor(seconds / 60)} min ${seconds % 60} s)\n`);
console.log('| mutant | engine | killed? | failing tests |');
console.log('|---|---|---|---|');
const SHOWN = 3;
for (const r of rows) {
  const killed = r.result.startsWith('killed') ? 'yes' : r.result === 'SURVIVED' ? '**SURVIVED**' : r.result;
  const names = r.failing.slice(0, SHOWN).map((f) => f.replace(/\|/g, '\\|'));
  if (r.failing.length > SHOWN) names.push(`… and ${r.failing.length - SHOWN} more`);
  console.log(`| ${r.mutant} | ${r.engine} | ${killed} | ${r.failing.length ? `${r.failing.length}: ${names.join('<br>')}` : '—'} |`);
}
const full = join(root, 'test-results/mutation/named-mutants.json');
mkdirSync(dirname(full), { recursive: true });
writeFileSync(full, `${JSON.stringify({ head, seconds, rows }, null, 2)}\n`);
console.log(`\nevery failing test name: ${full.replace(`${root}/`, '')}`);
if (broken || rows.some((r) => !r.result.startsWith('killed'))) process.exit(1);
