import { App } from 'aws-cdk-lib';
import { buildApp } from '../lib/app.js';
import { StageRefusal } from '../lib/stages.js';

/**
 * The CDK app: `cdk synth|deploy -c stage=dev|staging|prod [-c key=value …]` (lib/app.ts). A stage refused before
 * CloudFormation runs (a bad value, a quota it would pass) is one line on stderr and exit 1, no stack trace.
 */
try {
  buildApp(new App());
} catch (error) {
  if (!(error instanceof StageRefusal)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
