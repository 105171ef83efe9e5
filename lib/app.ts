import { Tags, Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CustomerApiStack } from './stack.js';
import { CONTEXT_KEYS, stageConfig } from './stages.js';

/**
 * The CDK app's contents, from its context: `-c stage=dev|staging|prod [-c key=value …]`. The stage's row
 * (lib/stages.ts) is the configuration; each context key of CONTEXT_KEYS (mailFrom, alarmEmail, domainName, edge,
 * the declared quotas, …) overrides it for one deployment. No look-ups: synth stays offline. bin/app.ts runs it,
 * and the cfn-lint test lints what it builds, so the template linted is the one deployed.
 */
export function buildApp(app: App): CustomerApiStack {
  const config = stageConfig(
    app.node.tryGetContext('stage') ?? 'dev',
    Object.fromEntries(CONTEXT_KEYS.map((key) => [key, app.node.tryGetContext(key)])),
  );
  const stack = new CustomerApiStack(app, `CustomerApi-${config.stage}`, { config, description: `Customer API (${config.stage})` });
  Tags.of(stack).add('project', 'customer-api');
  Tags.of(stack).add('stage', config.stage);

  // cdk-nag 3 is a validation plugin: any finding fails the synth. Justified exceptions are
  // acknowledged next to the resources they concern and copied into the template's metadata.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true }));
  return stack;
}
