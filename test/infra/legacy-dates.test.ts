import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { CustomerApiStack } from '#lib/stack';
import { stageConfig } from '#lib/stages';
import { STAGE_CONTEXT } from '../support/stage-context.js';
import { stageTemplates, testApp } from '../support/stage-template.js';

/** A stage's legacy-route dates reach the environment its functions share (LEGACY_DEPRECATED_AT, LEGACY_SUNSET_AT), and only when set. */

function environments(template: Template): Record<string, string>[] {
  return Object.values(template.findResources('AWS::Lambda::Function'))
    .map((fn) => (fn.Properties.Environment?.Variables ?? {}) as Record<string, string>)
    .filter((variables) => 'STAGE_RATE_LIMIT' in variables); // the functions given the stage's shared environment
}

describe('legacy-route dates', () => {
  it('reach every function of the stage when the stage sets them', () => {
    const context = { ...STAGE_CONTEXT.dev, legacyDeprecatedAt: '2027-01-31T00:00:00Z', legacySunsetAt: '2027-07-31' };
    const dated = environments(
      Template.fromStack(new CustomerApiStack(testApp(), 'CustomerApi-dev', { config: stageConfig('dev', context) })),
    );
    expect(dated.length).toBeGreaterThan(5);
    for (const variables of dated)
      expect([variables.LEGACY_DEPRECATED_AT, variables.LEGACY_SUNSET_AT]).toEqual(['2027-01-31T00:00:00Z', '2027-07-31']);
  });

  it('are in no environment while the stage sets none', async () => {
    const undated = environments((await stageTemplates(['dev'])).dev);
    expect(undated.length).toBeGreaterThan(5);
    expect(undated.filter((variables) => 'LEGACY_DEPRECATED_AT' in variables || 'LEGACY_SUNSET_AT' in variables)).toEqual([]);
  });
});
