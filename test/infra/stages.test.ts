import { describe, expect, it } from 'vitest';
import { AWS_DEFAULT_QUOTAS } from '#lib/aws-quotas';
import { throttleSum } from '#lib/route-throttles';
import { publicBaseUrlOf, reservedConcurrencyOf, STAGE_TABLE, stageConfig, STAGES, throttlesOf, type StageContext } from '#lib/stages';
import { STAGE_CONTEXT } from '../support/stage-context.js';

/** The stage table (lib/stages.ts): its rows, the context that overrides them, and every refusal's message. */
const MAIL = { mailFrom: 'alerts@example.com' };
const CERT = 'arn:aws:acm:us-east-1:111111111111:certificate/abc-123';
const refusal = (stage: string, context: StageContext) => {
  try {
    stageConfig(stage, context);
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

/** A pager topic in the region the edge cases deploy to: alarms notify a topic of their own region only. */
const EU_TOPIC = 'arn:aws:sns:eu-west-1:111111111111:pager';

describe('the stage table', () => {
  it('has dev, staging and prod rows that differ where production needs them to', () => {
    expect(STAGES).toEqual(['dev', 'staging', 'prod']);
    expect(STAGE_TABLE.dev).toMatchObject({
      retain: false,
      deployment: 'all-at-once',
      edge: { enabled: false },
      provisionedConcurrency: { token: 0, discovery: 0 },
    });
    expect(STAGE_TABLE.staging).toMatchObject({ deployment: 'canary', alarms: { required: true } });
    expect(STAGE_TABLE.prod).toMatchObject({ retain: true, deployment: 'canary', edge: { enabled: true }, alarms: { required: true } });
    expect(STAGE_TABLE.prod.provisionedConcurrency.token).toBeGreaterThan(0);
    // prod alarms earlier than dev on every threshold where lower means sooner.
    for (const key of ['apiServerErrorPercent', 'apiLatencyP99Ms', 'functionErrors', 'oldestMessageSeconds'] as const) {
      expect(STAGE_TABLE.prod.alarms.thresholds[key], key).toBeLessThan(STAGE_TABLE.dev.alarms.thresholds[key]);
    }
  });

  it('accepts every stage with the context the tests deploy it with', () => {
    for (const stage of STAGES) expect(stageConfig(stage, STAGE_CONTEXT[stage]).stage).toBe(stage);
  });

  it('lets a context value override a row for one deployment, leaving the row unchanged', () => {
    const config = stageConfig('dev', {
      ...MAIL,
      tracing: 'true',
      deployment: 'canary',
      alarmEmail: 'me@example.com',
      region: 'eu-west-1',
    });
    expect(config).toMatchObject({ tracing: true, deployment: 'canary', alarms: { email: 'me@example.com' }, region: 'eu-west-1' });
    expect(STAGE_TABLE.dev.tracing).toBe(false);
    expect(stageConfig('prod', { ...STAGE_CONTEXT.prod, edge: false }).edge.enabled).toBe(false);
  });

  it('derives the public base URL from the domain, and leaves it to the gateway without one', () => {
    expect(publicBaseUrlOf(stageConfig('prod', STAGE_CONTEXT.prod))).toBe('https://api.example.com');
    expect(publicBaseUrlOf(stageConfig('dev', MAIL))).toBe('');
  });

  it('refuses an unknown stage naming the known ones', () => {
    expect(refusal('qa', MAIL)).toBe('Unknown stage "qa": use -c stage=dev or -c stage=staging or -c stage=prod.');
    expect(refusal('toString', MAIL)).toContain('Unknown stage');
  });

  it.each<[string, string, StageContext, string]>([
    ['no mail sender', 'dev', {}, 'Stage dev: no mail sender: pass -c mailFrom='],
    [
      'a sender without an address',
      'dev',
      { mailFrom: 'Alerts <alerts>' },
      'Stage dev: mailFrom "Alerts <alerts>" is not an e-mail address',
    ],
    [
      'alarms that reach no one',
      'staging',
      MAIL,
      'Stage staging: its alarms must reach someone: pass -c alarmEmail=<address> or -c alarmTopicArn=',
    ],
    [
      'both an e-mail and a topic',
      'dev',
      { ...MAIL, alarmEmail: 'a@example.com', alarmTopicArn: 'arn:aws:sns:us-east-1:111111111111:t' },
      'not both',
    ],
    ['a bad alarm e-mail', 'dev', { ...MAIL, alarmEmail: 'oncall' }, 'Stage dev: alarmEmail "oncall" is not an e-mail address.'],
    ['a bad topic ARN', 'dev', { ...MAIL, alarmTopicArn: 'arn:aws:sqs:us-east-1:111111111111:t' }, 'is not an SNS topic ARN'],
    ['a bad account', 'dev', { ...MAIL, account: '12345' }, 'Stage dev: account "12345" is not a 12-digit AWS account id.'],
    ['a bad region', 'dev', { ...MAIL, region: 'mars-1' }, 'Stage dev: region "mars-1" is not an AWS region name.'],
    ['a bad tracing switch', 'dev', { ...MAIL, tracing: 'yes' }, 'Stage dev: -c tracing=yes: use true or false.'],
    ['a bad deployment style', 'dev', { ...MAIL, deployment: 'linear' }, 'Stage dev: -c deployment=linear: use all-at-once or canary.'],
    [
      'a domain without a certificate or zone',
      'dev',
      { ...MAIL, domainName: 'api.example.com' },
      'needs -c certificateArn=<ACM ARN> or -c hostedZoneId=',
    ],
    ['an upper-case domain', 'dev', { ...MAIL, domainName: 'API.example.com', certificateArn: CERT }, 'is not a lower-case DNS name'],
    [
      'a zone that does not hold the domain',
      'dev',
      { ...MAIL, domainName: 'api.example.com', hostedZoneId: 'Z123ABC', hostedZoneName: 'other.com' },
      'hostedZoneName must name the zone',
    ],
    ['a bad certificate ARN', 'dev', { ...MAIL, domainName: 'api.example.com', certificateArn: 'cert-1' }, 'is not an ACM certificate ARN'],
    [
      'the edge without a base URL',
      'prod',
      { ...STAGE_CONTEXT.prod, domainName: undefined },
      "Stage prod: the edge needs the stage's base URL",
    ],
    [
      'the edge with a certificate outside us-east-1',
      'prod',
      { ...STAGE_CONTEXT.prod, certificateArn: CERT.replace('us-east-1', 'eu-west-1') },
      'needs its certificate in us-east-1',
    ],
    [
      'the edge creating its web ACL outside us-east-1',
      'prod',
      { ...STAGE_CONTEXT.prod, region: 'eu-west-1', alarmTopicArn: EU_TOPIC },
      'in us-east-1 only: pass -c region=us-east-1',
    ],
    [
      'a web ACL without the edge',
      'dev',
      { ...MAIL, webAclArn: 'arn:aws:wafv2:us-east-1:111111111111:global/webacl/a/b' },
      '-c webAclArn needs the edge',
    ],
    [
      'a regional web ACL',
      'prod',
      { ...STAGE_CONTEXT.prod, webAclArn: 'arn:aws:wafv2:us-east-1:111111111111:regional/webacl/a/b' },
      'is not a CloudFront-scope WAF web ACL ARN',
    ],
  ])('refuses %s with an error naming the stage and the field', (_what, stage, context, message) => {
    expect(refusal(stage, context)).toContain(message);
  });

  it('accepts an edge outside us-east-1 when both its web ACL and certificate are imported', () => {
    const config = stageConfig('prod', {
      ...STAGE_CONTEXT.prod,
      region: 'eu-west-1',
      alarmTopicArn: EU_TOPIC,
      webAclArn: 'arn:aws:wafv2:us-east-1:111111111111:global/webacl/edge/1a2b',
    });
    expect(config.edge).toEqual({ enabled: true, webAclArn: 'arn:aws:wafv2:us-east-1:111111111111:global/webacl/edge/1a2b' });
  });

  it("takes the legacy routes' deprecation and sunset dates from the context, as ISO dates in order, and sets none by default", () => {
    for (const stage of STAGES) {
      const config = stageConfig(stage, STAGE_CONTEXT[stage]);
      expect([config.legacyDeprecatedAt, config.legacySunsetAt], stage).toEqual([undefined, undefined]);
    }
    const config = stageConfig('dev', { ...MAIL, legacyDeprecatedAt: '2027-01-31T00:00:00Z', legacySunsetAt: '2027-07-31' });
    expect([config.legacyDeprecatedAt, config.legacySunsetAt]).toEqual(['2027-01-31T00:00:00Z', '2027-07-31']);
    expect(refusal('dev', { ...MAIL, legacySunsetAt: '31/07/2027' })).toContain('Stage dev: legacySunsetAt must be an ISO 8601 date');
    expect(refusal('dev', { ...MAIL, legacyDeprecatedAt: '2027-02-30' })).toContain('legacyDeprecatedAt must be an ISO 8601 date');
    expect(refusal('dev', { ...MAIL, legacyDeprecatedAt: '2027-07-31', legacySunsetAt: '2027-01-31' })).toContain(
      'legacySunsetAt must come after legacyDeprecatedAt',
    );
  });

  describe('account quotas, declared and checked before CloudFormation runs', () => {
    const PROD = STAGE_CONTEXT.prod;
    it("sizes every stage, prod included, within AWS's default quotas unless the deployment declares the account's", () => {
      for (const stage of STAGES) expect(stageConfig(stage, STAGE_CONTEXT[stage]).quotas, stage).toEqual(AWS_DEFAULT_QUOTAS);
      expect(AWS_DEFAULT_QUOTAS).toEqual({
        tableReadQuota: 40_000,
        tableWriteQuota: 40_000,
        apiThrottleQuota: 10_000,
        lambdaConcurrencyQuota: 1_000,
      });
      const raised = stageConfig('prod', { ...PROD, tableReadQuota: '80000', apiThrottleQuota: 20_000 });
      expect(raised.quotas).toEqual({ ...AWS_DEFAULT_QUOTAS, tableReadQuota: 80_000, apiThrottleQuota: 20_000 });
      expect(refusal('prod', { ...PROD, tableReadQuota: 'lots' })).toBe(
        "Stage prod: -c tableReadQuota=lots: use the account's DynamoDB on-demand table-level read request units a second, a whole number.",
      );
      expect(refusal('prod', { ...PROD, lambdaConcurrencyQuota: '0' })).toContain('-c lambdaConcurrencyQuota=0: use the account');
    });

    it('refuses each need past a declared quota in one line naming the quota, its default and the flag that declares it', () => {
      const flagLine = (key: string) =>
        `if the account's quota is raised, declare it with -c ${key}=<value> (docs/operations.md, "Account quotas").`;
      const warm = STAGE_TABLE.prod.warmThroughput;
      const cases: [StageContext, string][] = [
        [
          { tableReadQuota: warm.readUnitsPerSecond - 1 },
          `Stage prod: its table's warm throughput is ${warm.readUnitsPerSecond} read units a second, past the quota "DynamoDB on-demand table-level read request units a second" declared as ${warm.readUnitsPerSecond - 1} (AWS's default 40000): ${flagLine('tableReadQuota')}`,
        ],
        [
          { tableWriteQuota: warm.writeUnitsPerSecond - 1 },
          `Stage prod: its table's warm throughput is ${warm.writeUnitsPerSecond} write units a second, past the quota "DynamoDB on-demand table-level write request units a second" declared as ${warm.writeUnitsPerSecond - 1} (AWS's default 40000): ${flagLine('tableWriteQuota')}`,
        ],
        [
          { apiThrottleQuota: throttleSum(throttlesOf(STAGE_TABLE.prod).routes) - 1 },
          `Stage prod: its routes' throttles add up to ${throttleSum(throttlesOf(STAGE_TABLE.prod).routes)} requests a second, past the quota "API Gateway throttle per account and Region, all APIs together (requests a second)" declared as ${throttleSum(throttlesOf(STAGE_TABLE.prod).routes) - 1} (AWS's default 10000): ${flagLine('apiThrottleQuota')}`,
        ],
        [
          // prod reserves its deliverer's 100, the sweeper's 2 and the producer function's 57, and provisions 2 + 2:
          // 163 of 262 leaves 99.
          { lambdaConcurrencyQuota: reservedConcurrencyOf(STAGE_TABLE.prod) + 99 },
          `Stage prod: its functions reserve 163 concurrent executions (reserved and provisioned), leaving 99 unreserved where Lambda keeps at least 100, past the quota "Lambda concurrent executions per account and Region" declared as 262 (AWS's default 1000): ${flagLine('lambdaConcurrencyQuota')}`,
        ],
      ];
      for (const [context, message] of cases) {
        expect(refusal('prod', { ...PROD, ...context })).toBe(message);
        expect(message).not.toContain('\n');
      }
      // At the declared quota itself, each is accepted.
      expect(refusal('prod', { ...PROD, lambdaConcurrencyQuota: reservedConcurrencyOf(STAGE_TABLE.prod) + 100 })).toBe('accepted');
      expect(refusal('prod', { ...PROD, tableReadQuota: warm.readUnitsPerSecond })).toBe('accepted');
    });

    it("refuses a warm throughput below a new table's, and a capacity without a floor (the row changed for one call)", () => {
      const refusalWith = (change: object) => {
        const saved = { ...STAGE_TABLE.prod };
        Object.assign(STAGE_TABLE.prod, change);
        try {
          return refusal('prod', PROD);
        } finally {
          Object.assign(STAGE_TABLE.prod, saved);
        }
      };
      expect(refusalWith({})).toBe('accepted');
      expect(refusalWith({ warmThroughput: { readUnitsPerSecond: 1_000, writeUnitsPerSecond: 4_000 } })).toMatch(
        /warmThroughput .* needs whole read units from 12000 and write units from 4000/,
      );
      expect(refusalWith({ capacity: { requestsPerSecond: 100, perRouteFloor: 0 } })).toMatch(/needs a positive whole perRouteFloor/);
    });
  });
});
