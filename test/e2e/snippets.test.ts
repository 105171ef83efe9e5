import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { seedDemoMenu } from '#local/demo-menu';
import { snippetVariables } from '#local/snippet-environment';
import { ENGINE_NAME, startTestRuntime } from '../support/runtime.js';
import { runtimeFileFor } from '../fixtures/admin-cli.js';
import { runProcess } from '../support/run-process.js';

/**
 * Every fenced `sh` and `ts` block of the repository's Markdown runs as pasted against a runtime as `npm start`
 * gives it, with the environment its banner prints, unless the line before the fence says
 * `<!-- not runnable: why -->`. A file's shell blocks run in order in one shell, as a reader pastes them; each
 * TypeScript block runs as a file of its own with tsx, where `@customer-api/kit` resolves as the docs say.
 * The only change made to a snippet: `http://localhost:3000` is this runtime's URL.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEFAULT_URL = 'http://localhost:3000';
const MARKDOWN = spawnSync('git', ['ls-files', '*.md'], { cwd: ROOT, encoding: 'utf8' })
  .stdout.split('\n')
  .filter((f) => f && f !== 'CHANGELOG.md');

type Block = { file: string; line: number; lang: 'sh' | 'ts'; code: string; skip: string | null };

function blocksOf(file: string): Block[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    const lang = open[1];
    if (lang === 'sh' || lang === 'ts') {
      const marker = /^<!-- not runnable: (.+) -->$/.exec(lines[i - 1] ?? '');
      blocks.push({ file, line: i + 1, lang, code: lines.slice(i + 1, end).join('\n'), skip: marker ? marker[1]! : null });
    }
    i = end;
  }
  return blocks;
}

/** The README's opening block is the install and the test run themselves, which CI runs from a clean clone (.ci/run). */
const CI_RUNS_IT = { file: 'README.md', line: 3, why: 'the install and the whole test run: CI runs them from a clean clone (.ci/run)' };
const BLOCKS = MARKDOWN.flatMap(blocksOf).map((b) =>
  b.file === CI_RUNS_IT.file && b.line === CI_RUNS_IT.line ? { ...b, skip: CI_RUNS_IT.why } : b,
);
let runtime: LocalRuntime;
let env: NodeJS.ProcessEnv;
// Each engine's run of this file has its own folder: the other engine's may run beside it.
const work = join(ROOT, 'test-results', 'snippets', ENGINE_NAME.replaceAll(' ', '-'));
/** Where the shell blocks run: the repository's entries linked, so what a block writes in its folder is this run's alone. */
const checkout = join(work, 'checkout');

beforeAll(async () => {
  runtime = await startTestRuntime();
  await seedDemoMenu(runtime.deps);
  const { clientId, clientSecret } = runtime.demo!;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(checkout, { recursive: true });
  for (const entry of readdirSync(ROOT)) if (entry !== 'test-results') symlinkSync(join(ROOT, entry), join(checkout, entry));
  env = {
    ...process.env,
    NODE_EXTRA_CA_CERTS: join(ROOT, 'test/fixtures/tls/ca.pem'),
    ...snippetVariables(runtime.url, clientId, clientSecret, runtime.adminKey, runtime.producerKeys, runtime.queues.stopCommandQueueUrl),
    // The admin CLI finds this runtime as it finds `npm start`'s, through its runtime file.
    CUSTOMER_API_RUNTIME_FILE: runtimeFileFor(runtime, work, 'runtime.json'),
  };
});
afterAll(() => runtime?.stop());

/** A child process with the snippets' environment: its stdout, and its stdout and stderr together. */
async function run(
  command: string,
  args: string[],
  cwd: string,
  input?: string,
): Promise<{ code: number | null; output: string; stdout: string }> {
  const { status, stdout, stderr } = await runProcess(command, args, {
    cwd,
    env,
    timeout: 90_000,
    ...(input === undefined ? {} : { input }),
  });
  return { code: status, output: stdout + stderr, stdout };
}

describe('snippets of the docs', () => {
  it('finds the blocks, and every one left out says why', () => {
    const skipped = BLOCKS.filter((b) => b.skip);
    console.log(
      `${BLOCKS.length - skipped.length} snippets run; left out:\n${skipped.map((b) => `  ${b.file}:${b.line} ${b.skip}`).join('\n')}`,
    );
    expect(BLOCKS.filter((b) => !b.skip).length).toBeGreaterThanOrEqual(5);
    for (const b of skipped) expect(b.skip!.trim().length, `${b.file}:${b.line}`).toBeGreaterThan(10);
  });

  const shellFiles = [...new Set(BLOCKS.filter((b) => b.lang === 'sh' && !b.skip).map((b) => b.file))];
  it.each(shellFiles)('%s: its shell blocks run in order, in one shell', async (file) => {
    const script = BLOCKS.filter((b) => b.file === file && b.lang === 'sh' && !b.skip)
      .map((b) => `echo "@@ ${b.file}:${b.line}"\n${b.code.replaceAll(DEFAULT_URL, runtime.url)}`)
      .join('\n');
    const { code, output } = await run('bash', ['-euo', 'pipefail', '-s'], checkout, script);
    expect(code, output).toBe(0);
  });

  it.each(BLOCKS.filter((b) => b.lang === 'ts' && !b.skip).map((b) => [`${b.file}:${b.line}`, b] as const))(
    '%s runs with tsx',
    async (name, block) => {
      const file = join(work, `${name.replaceAll(/[/:.]/g, '-')}.ts`);
      writeFileSync(file, block.code);
      const { code, output } = await run(process.execPath, ['--import', 'tsx', file], ROOT);
      expect(code, output).toBe(0);
    },
  );
});

describe('the kit outside this repository', () => {
  it('installs from its packed tarball into a new project and runs the quick start there', async () => {
    const project = mkdtempSync(join(tmpdir(), 'kit-user-'));
    try {
      const packed = await run('npm', ['pack', join(ROOT, 'clients/typescript'), '--pack-destination', project, '--json'], ROOT);
      expect(packed.code, packed.output).toBe(0);
      const tarball = (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename;
      writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'kit-user', private: true, type: 'module' }));
      // The kit's one dependency: its files from npm's cache, which `npm ci` filled; its version list from the registry.
      const installed = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${tarball}`], project);
      expect(installed.code, installed.output).toBe(0);
      const quickStart = BLOCKS.find((b) => b.file === 'clients/typescript/README.md' && b.lang === 'ts' && !b.skip)!;
      writeFileSync(join(project, 'quick-start.ts'), quickStart.code);
      const ran = await run(process.execPath, ['--import', join(ROOT, 'node_modules/tsx/dist/esm/index.mjs'), 'quick-start.ts'], project);
      expect(ran.code, ran.output).toBe(0);
      expect(ran.output).toContain('nyc-midtown');
      expect(ran.output).toContain('evt_1');
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
