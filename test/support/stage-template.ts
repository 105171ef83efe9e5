import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CustomerApiStack } from '#lib/stack';
import { stageConfig, type Stage } from '#lib/stages';
import { runProcess } from './run-process.js';
import { STAGE_CONTEXT } from './stage-context.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** cdk.json's context: the feature flags `cdk synth` runs with, so a test's template is the deployed one. */
const CONTEXT = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')).context;

/**
 * An App as `cdk synth` builds one, for a test: without bundling unless `bundle`, and without staging assets unless
 * `stageAssets` (a test that reads them), since a staged stage copies some 25 MB (the console, the CLI layer) into
 * its assembly on every synth.
 */
export function testApp({ bundle = false, stageAssets = bundle, outdir, context }: TestAppOptions = {}): App {
  return new App({
    ...(outdir ? { outdir } : {}),
    context: {
      ...CONTEXT,
      ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...(stageAssets ? {} : { 'aws:cdk:disable-asset-staging': true }),
      ...context,
    },
  });
}
type TestAppOptions = { bundle?: boolean; stageAssets?: boolean; outdir?: string; context?: Record<string, unknown> };

/**
 * A stage's template with its example context (STAGE_CONTEXT), without bundling: for assertions that read the
 * template. Synthesized once per run and kept in the run's folder (run-tmpdir.ts): several suites read the same
 * three stages, and a synthesis costs seconds of CPU. The first fork to ask takes a lock and synthesizes; the others
 * wait for its file (or synthesize themselves if it gave up).
 */
async function stageTemplate(stage: Stage): Promise<Template> {
  const dir = join(process.env.CUSTOMER_API_TEST_TMPDIR ?? tmpdir(), 'stage-templates');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${stage}.json`);
  const lock = `${file}.lock`;
  const kept = () => (existsSync(file) ? Template.fromJSON(JSON.parse(readFileSync(file, 'utf8'))) : null);
  for (;;) {
    const template = kept();
    if (template) return template;
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (!existsSync(lock)) continue;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    // Another fork may have written it between this one's look and its lock.
    const ready = kept();
    if (ready) return ready;
    const app = testApp();
    const json = Template.fromStack(
      new CustomerApiStack(app, `CustomerApi-${stage}`, { config: stageConfig(stage, STAGE_CONTEXT[stage]) }),
    ).toJSON();
    writeFileSync(`${file}.part`, JSON.stringify(json));
    renameSync(`${file}.part`, file);
    return Template.fromJSON(json);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Several stages' templates, with a turn of the event loop before each synthesis (synchronous, seconds long): on a
 * busy machine vitest's own calls from this worker then get their answers between syntheses, not after them all.
 */
export async function stageTemplates<S extends Stage>(stages: readonly S[]): Promise<Record<S, Template>> {
  const templates = {} as Record<S, Template>;
  for (const stage of stages) {
    await new Promise((resolve) => setImmediate(resolve));
    templates[stage] = await stageTemplate(stage);
  }
  return templates;
}

/** What a bundled synthesis leaves: its template, its assembly folder (the asset.<hash> bundles) and CDK's messages. */
export type BundledStage = { template: Template; assemblyDir: string; messages: { level: string; id: string; text: unknown }[] };

/**
 * A stage synthesized with bundling in a child process, as `cdk synth` runs the app: esbuild bundles each function
 * synchronously, and in this worker that would block vitest's own calls for over a minute on a busy machine.
 */
export async function bundledStage(stage: Stage, context: Record<string, unknown>): Promise<BundledStage> {
  const assemblyDir = mkdtempSync(join(tmpdir(), 'customer-api-bundled-'));
  const script = `
    import { testApp } from './test/support/stage-template.ts';
    import { CustomerApiStack } from '#lib/stack';
    import { stageConfig } from '#lib/stages';
    const app = testApp({ bundle: true, outdir: ${JSON.stringify(assemblyDir)} });
    const stack = new CustomerApiStack(app, 'CustomerApi-${stage}', { config: stageConfig('${stage}', ${JSON.stringify(context)}) });
    const artifact = app.synth().getStackArtifact(stack.artifactId);
    const messages = artifact.messages.map((m) => ({ level: m.level, id: m.id, text: m.entry.data }));
    process.stdout.write(JSON.stringify({ templateFile: artifact.templateFullPath, messages }));`;
  const run = await runProcess(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT });
  if (run.status !== 0) throw new Error(`bundled synth of ${stage} failed: ${run.stderr}`);
  const { templateFile, messages } = JSON.parse(run.stdout) as { templateFile: string; messages: BundledStage['messages'] };
  return { template: Template.fromJSON(JSON.parse(readFileSync(templateFile, 'utf8'))), assemblyDir, messages };
}
