import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { CustomerApiStack } from '#lib/stack';
import { stageConfig, STAGES } from '#lib/stages';
import { STAGE_CONTEXT } from '../support/stage-context.js';

/**
 * `npm run listen` registers a loopback destination, which only a runtime with WEBHOOK_ALLOW_LOOPBACK=1 accepts
 * and delivers to. That switch (and the delivery time scale) must stay the local runtime's: no function of any
 * stage is given either, so a deployed stage keeps refusing loopback URLs on save and before every attempt.
 */
const CONTEXT = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')).context;

describe('local-only webhook switches', () => {
  it.each(STAGES)(
    'are in no function environment of stage %s',
    (stage) => {
      const app = new App({ context: { ...CONTEXT, 'aws:cdk:bundling-stacks': [] } });
      const stack = new CustomerApiStack(app, `CustomerApi-${stage}`, { config: stageConfig(stage, STAGE_CONTEXT[stage]) });
      const functions = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function'));
      const names = functions.flatMap((fn) => Object.keys(fn.Properties.Environment?.Variables ?? {}));
      // The environments are read where the stack sets them: TABLE_NAME is in them.
      expect(names).toContain('TABLE_NAME');
      expect(names.filter((name) => name === 'WEBHOOK_ALLOW_LOOPBACK' || name === 'WEBHOOK_TIME_SCALE')).toEqual([]);
    },
    120_000,
  );
});
