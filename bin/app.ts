import { App, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CustomerApiStack, isStage, STAGES } from '../lib/stack.js';

/**
 * The CDK app: `cdk synth|deploy -c stage=dev|prod [-c mailFrom=...] [-c publicBaseUrl=...] [-c tracing=true|false]`.
 * `tracing` overrides the stage's X-Ray setting (off in every stage) for one deployment.
 * Environment-agnostic (no account/region, no lookups) so it synthesizes offline.
 */
const app = new App();

const stage: unknown = app.node.tryGetContext('stage') ?? 'dev';
if (!isStage(stage)) {
  throw new Error(`Unknown stage ${JSON.stringify(stage)}: use -c stage=${STAGES.join(' or -c stage=')}.`);
}
const optional = (key: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};

// A string on the command line, a boolean in cdk.json; absent: the stage's own setting.
const tracing: unknown = app.node.tryGetContext('tracing');
if (tracing !== undefined && !['true', 'false', true, false].includes(tracing as string | boolean)) {
  throw new Error(`-c tracing=${String(tracing)}: use true or false.`);
}

const stack = new CustomerApiStack(app, `CustomerApi-${stage}`, {
  stage,
  mailFrom: optional('mailFrom'),
  publicBaseUrl: optional('publicBaseUrl'),
  ...(tracing === undefined ? {} : { tracing: String(tracing) === 'true' }),
  description: `Customer API (${stage})`,
});
Tags.of(stack).add('project', 'customer-api');
Tags.of(stack).add('stage', stage);

// cdk-nag 3 is a validation plugin: any finding fails the synth. Justified exceptions are
// acknowledged next to the resources they concern and copied into the template's metadata.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true }));
