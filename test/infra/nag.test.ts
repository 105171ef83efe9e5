import { App, Stack, type PolicyValidationPluginReport } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { CustomerApiStack } from '#lib/stack';
import { STAGE_TABLE, STAGES, stageConfig } from '#lib/stages';
import { STAGE_CONTEXT } from '../support/stage-context.js';
import { testApp } from '../support/stage-template.js';

/** Rule ids with the construct paths that violate them, for readable failures. */
const summary = (report: PolicyValidationPluginReport, severity: string) =>
  report.violations
    .filter((v) => v.severity === severity)
    .map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);

/** Every stage as configured, and one with X-Ray tracing switched on (its wildcard grant is then acknowledged). */
const CASES = [...STAGES.map((stage) => ({ stage, tracing: undefined })), { stage: 'prod' as const, tracing: true }];

describe.each(CASES)('cdk-nag AwsSolutions ($stage, tracing $tracing)', ({ stage, tracing }) => {
  let stack: Stack;
  let template: Template;
  let report: PolicyValidationPluginReport;

  beforeAll(() => {
    // Function bundles are not what cdk-nag reads: skip esbuild (`cdk synth` still bundles).
    const app = testApp();
    // As bin/app.ts does; the scope lets the pack copy acknowledgements into the template metadata.
    const pack = new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true });
    stack = new CustomerApiStack(app, `CustomerApi-${stage}`, { config: stageConfig(stage, { ...STAGE_CONTEXT[stage], tracing }) });
    template = Template.fromStack(stack);
    report = pack.validateScope(app);
  });

  it('reports no errors', () => {
    expect(summary(report, 'error')).toEqual([]);
    expect(Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))).toEqual([]);
  });

  it('reports no warnings', () => {
    expect(summary(report, 'warning')).toEqual([]);
    expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*'))).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('gives every acknowledged rule a specific reason', () => {
    const rules = Object.values(template.toJSON().Resources as Record<string, { Metadata?: any }>).flatMap(
      (r) => (r.Metadata?.cdk_nag?.rules_to_suppress ?? []) as { id: string; reason: string }[],
    );
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) {
      // cdk-nag's pack, or CDK's own template validation (an alias as an SNS lambda endpoint: constructs/mail-events.ts).
      expect(rule.id).toMatch(/^(AwsSolutions-|CloudFormation-Validate::)/);
      expect(rule.reason?.trim().length ?? 0, rule.id).toBeGreaterThanOrEqual(20);
    }
  });

  it('says what CloudFront does: CFR4 only on the default certificate, which CloudFront holds at TLSv1; standard logs need no ACL bucket', () => {
    const distributions = Object.values(template.findResources('AWS::CloudFront::Distribution') as Record<string, any>);
    expect(distributions.length).toBeGreaterThan(0);
    for (const d of distributions) {
      const rules = (d.Metadata?.cdk_nag?.rules_to_suppress ?? []) as { id: string; reason: string }[];
      const certificate = d.Properties.DistributionConfig.ViewerCertificate;
      const tls = rules.find((rule) => rule.id === 'AwsSolutions-CFR4');
      // With a certificate of its own the distribution sets TLS 1.2 and needs no acknowledgement.
      if (certificate?.AcmCertificateArn) expect(certificate.MinimumProtocolVersion).toBe('TLSv1.2_2021');
      if (tls) {
        expect(certificate?.AcmCertificateArn).toBeUndefined();
        expect(tls.reason).toMatch(/sets the security policy TLSv1/);
      }
      for (const rule of rules.filter((r) => r.id === 'AwsSolutions-CFR3')) expect(rule.reason).not.toMatch(/ACL/);
    }
  });

  it('acknowledges the X-Ray wildcard only where tracing grants it', () => {
    const acknowledged = Object.values(template.toJSON().Resources as Record<string, { Type: string; Metadata?: any }>).filter((r) =>
      ((r.Metadata?.cdk_nag?.rules_to_suppress ?? []) as { id: string }[]).some((rule) => rule.id === 'AwsSolutions-IAM5[Resource::*]'),
    );
    // One default policy per function (the /v1 families, the admin API, the three webhook functions) when traced; none otherwise.
    const traced = tracing ?? STAGE_TABLE[stage].tracing;
    expect(acknowledged.length > 0).toBe(traced);
    for (const r of acknowledged) expect(r.Type).toBe('AWS::IAM::Policy');
  });
});

describe('cdk-nag AwsSolutions pack', () => {
  it('does flag what it should (the checks above are not vacuous)', () => {
    const app = new App();
    const stack = new Stack(app, 'Bare');
    new Queue(stack, 'Queue');
    const report = new AwsSolutionsChecks(app).validateScope(app);
    expect(report.violations.map((v) => v.ruleName)).toEqual(expect.arrayContaining(['AwsSolutions-SQS3', 'AwsSolutions-SQS4']));
  });
});
