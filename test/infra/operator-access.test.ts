import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOAD_TABLE_ACTIONS } from '#lib/constructs/operator-policy';
import { CustomerApiStack } from '#lib/stack';
import { stageConfig, type Stage, type StageContext } from '#lib/stages';
import { STAGE_CONTEXT } from '../support/stage-context.js';
import { testApp } from '../support/stage-template.js';

/** What an operator is given (the managed policy the stack outputs) and the stage's CloudTrail trail, as synthesized. */

const PLATFORM_TRAIL = 'arn:aws:cloudtrail:us-east-1:111111111111:trail/organization';

type Json = Record<string, any>;

function synth(stage: Stage, context: StageContext = {}): Json {
  const app = testApp();
  const stack = new CustomerApiStack(app, `CustomerApi-${stage}`, { config: stageConfig(stage, { ...STAGE_CONTEXT[stage], ...context }) });
  return Template.fromStack(stack).toJSON();
}

const ofType = (template: Json, type: string) => Object.entries(template.Resources as Json).filter(([, r]) => r.Type === type);
const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

describe('the operator policy and the trail (staging)', () => {
  let template: Json;
  beforeAll(() => {
    template = synth('staging');
  });

  it('outputs a managed policy that invokes the admin routes only, reads the stack outputs, and (for now) lets the loads write the table', () => {
    const [policyId, policy] = ofType(template, 'AWS::IAM::ManagedPolicy').find(([id]) => id.startsWith('Operator'))!;
    expect(template.Outputs.OperatorPolicyArn.Value).toEqual({ Ref: policyId });
    const statements = policy.Properties.PolicyDocument.Statement as Json[];
    const bySid = Object.fromEntries(statements.map((s) => [s.Sid, s]));
    expect(Object.keys(bySid).sort()).toEqual(['AdminApi', 'StackOutputs', 'VenueDataLoadsTemporary']);
    expect(statements.every((s) => s.Effect === 'Allow' && !s.Condition)).toBe(true);

    const [apiId] = ofType(template, 'AWS::ApiGatewayV2::Api')[0]!;
    expect(list(bySid.AdminApi.Action)).toEqual(['execute-api:Invoke']);
    const route = JSON.stringify(bySid.AdminApi.Resource);
    expect(route).toContain(`{"Ref":"${apiId}"}`);
    // Every method of the $default stage below /admin, nothing else of the API.
    expect(route).toMatch(/":execute-api:".*"\/\$default\/\*\/admin\/\*"\]\]\}$/);

    expect(bySid.StackOutputs).toMatchObject({ Action: 'cloudformation:DescribeStacks', Resource: { Ref: 'AWS::StackId' } });

    const [tableId] = ofType(template, 'AWS::DynamoDB::Table')[0]!;
    expect(list(bySid.VenueDataLoadsTemporary.Action).sort()).toEqual(LOAD_TABLE_ACTIONS.map((a) => `dynamodb:${a}`).sort());
    expect(JSON.stringify(bySid.VenueDataLoadsTemporary.Resource)).toContain(`"Fn::GetAtt":["${tableId}","Arn"]`);
    expect(JSON.stringify(policy)).not.toMatch(/"(dynamodb|execute-api|cloudformation):\*"|"Resource":"\*"/);
  });

  it("creates a trail of the stage's management events, read and write, with no data events, to a bucket of its own", () => {
    const [trailId, trail] = ofType(template, 'AWS::CloudTrail::Trail')[0]!;
    expect(ofType(template, 'AWS::CloudTrail::Trail')).toHaveLength(1);
    expect(trail.Properties).toMatchObject({ TrailName: 'customer-api-staging', EnableLogFileValidation: true, IsLogging: true });
    expect(trail.Properties.EventSelectors).toEqual([{ ReadWriteType: 'All', IncludeManagementEvents: true }]);
    expect(trail.Properties.AdvancedEventSelectors).toBeUndefined();
    expect(template.Outputs.TrailArn.Value).toEqual({ 'Fn::GetAtt': [trailId, 'Arn'] });
  });
});

describe("a stage on the platform's trail", () => {
  it('creates none and outputs the one it was given; a malformed ARN is refused before synth', () => {
    const template = synth('dev', { trailArn: PLATFORM_TRAIL });
    expect(ofType(template, 'AWS::CloudTrail::Trail')).toEqual([]);
    expect(template.Outputs.TrailArn.Value).toBe(PLATFORM_TRAIL);
    expect(() => stageConfig('dev', { ...STAGE_CONTEXT.dev, trailArn: 'organization' })).toThrow(
      'Stage dev: trailArn "organization" is not a CloudTrail trail ARN',
    );
  });
});
