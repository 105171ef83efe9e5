import type { Stage, StageContext } from '#lib/stages';

/**
 * What a platform team passes with `-c` for each stage, with example values: the deployment context the
 * infrastructure tests, cdk-nag and cfn-lint synthesize every stage with (docs/operations.md shows the same).
 */
export const STAGE_CONTEXT: Record<Stage, StageContext> = {
  dev: { mailFrom: 'Customer API <alerts@mail.example.com>' },
  staging: { mailFrom: 'Customer API <alerts@mail.example.com>', alarmEmail: 'oncall@example.com' },
  prod: {
    mailFrom: 'Customer API <alerts@mail.example.com>',
    alarmTopicArn: 'arn:aws:sns:us-east-1:111111111111:pager',
    region: 'us-east-1',
    domainName: 'api.example.com',
    certificateArn: 'arn:aws:acm:us-east-1:111111111111:certificate/0f3c9a52-7d1e-4b8a-9c2e-1a2b3c4d5e6f',
  },
};
