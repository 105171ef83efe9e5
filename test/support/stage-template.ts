import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CustomerApiStack } from '#lib/stack';
import { stageConfig, type Stage } from '#lib/stages';
import { STAGE_CONTEXT } from './stage-context.js';

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

/** A stage's template with its example context (STAGE_CONTEXT), without bundling: for assertions that read the template. */
function stageTemplate(stage: Stage): Template {
  const app = testApp();
  return Template.fromStack(new CustomerApiStack(app, `CustomerApi-${stage}`, { config: stageConfig(stage, STAGE_CONTEXT[stage]) }));
}

/**
 * Several stages' templates, with a turn of the event loop before each synthesis (synchronous, seconds long): on a
 * busy machine vitest's own calls from this worker then get their answers between syntheses, not after them all.
 */
export async function stageTemplates<S extends Stage>(stages: readonly S[]): Promise<Record<S, Template>> {
  const templates = {} as Record<S, Template>;
  for (const stage of stages) {
    await new Promise((resolve) => setImmediate(resolve));
    templates[stage] = stageTemplate(stage);
  }
  return templates;
}
