import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CustomerApiStack } from '#lib/stack';
import { stageConfig, type Stage } from '#lib/stages';
import { STAGE_CONTEXT } from './stage-context.js';

/** cdk.json's context: the feature flags `cdk synth` runs with, so a test's template is the deployed one. */
const CONTEXT = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')).context;

/** A stage's template with its example context (STAGE_CONTEXT), without bundling: for assertions that read the template. */
export function stageTemplate(stage: Stage): Template {
  const app = new App({ context: { ...CONTEXT, 'aws:cdk:bundling-stacks': [] } });
  return Template.fromStack(new CustomerApiStack(app, `CustomerApi-${stage}`, { config: stageConfig(stage, STAGE_CONTEXT[stage]) }));
}
