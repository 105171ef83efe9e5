import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { invokePathsOf, PRODUCER_ROUTES, PRODUCERS } from '#lambdas/producers/routes';
import { STOP_COMMAND_CONSUMER_ACTIONS } from '#lib/constructs/producer-policies';
import { STOP_COMMAND_QUEUES } from '#lambdas/matriq/stop-queue';
import { pascal } from '#lib/constructs/service-function';
import { CustomerApiStack } from '#lib/stack';
import { stageConfig, type Stage, type StageContext } from '#lib/stages';
import { STAGE_CONTEXT } from '../support/stage-context.js';
import { stageTemplates, testApp } from '../support/stage-template.js';

/**
 * What an operator is given (the managed policy the stack outputs), what each class of producer is given (its own),
 * and the stage's CloudTrail trail, as synthesized.
 */

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
  beforeAll(async () => {
    template = (await stageTemplates(['staging'])).staging.toJSON();
  });

  it('outputs a managed policy that invokes the admin routes only and reads the stack outputs: no DynamoDB action at all', () => {
    const [policyId, policy] = ofType(template, 'AWS::IAM::ManagedPolicy').find(([id]) => id.startsWith('Operator'))!;
    expect(template.Outputs.OperatorPolicyArn.Value).toEqual({ Ref: policyId });
    const statements = policy.Properties.PolicyDocument.Statement as Json[];
    const bySid = Object.fromEntries(statements.map((s) => [s.Sid, s]));
    expect(Object.keys(bySid).sort()).toEqual(['AdminApi', 'StackOutputs']);
    expect(statements.every((s) => s.Effect === 'Allow' && !s.Condition)).toBe(true);

    const [apiId] = ofType(template, 'AWS::ApiGatewayV2::Api')[0]!;
    expect(list(bySid.AdminApi.Action)).toEqual(['execute-api:Invoke']);
    const route = JSON.stringify(bySid.AdminApi.Resource);
    expect(route).toContain(`{"Ref":"${apiId}"}`);
    // Every method of the $default stage below /admin, nothing else of the API.
    expect(route).toMatch(/":execute-api:".*"\/\$default\/\*\/admin\/\*"\]\]\}$/);

    expect(bySid.StackOutputs).toMatchObject({ Action: 'cloudformation:DescribeStacks', Resource: { Ref: 'AWS::StackId' } });

    // Every load and read is an admin route, audited: the operator never reaches the table (nor its indexes) itself.
    const [tableId] = ofType(template, 'AWS::DynamoDB::Table')[0]!;
    expect(statements.flatMap((s) => list(s.Action)).filter((a: string) => a.startsWith('dynamodb:'))).toEqual([]);
    expect(JSON.stringify(policy)).not.toMatch(new RegExp(`dynamodb|"${tableId}"`));
    expect(JSON.stringify(policy)).not.toMatch(/"(execute-api|cloudformation):\*"|"Resource":"\*"/);
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

describe('the producer policies (staging)', () => {
  let template: Json;
  beforeAll(async () => {
    template = (await stageTemplates(['staging'])).staging.toJSON();
  });

  /** A Fn::Join of the template as text, each pseudo parameter and reference as `<Name>`. */
  const text = (value: unknown): string => {
    if (typeof value === 'string') return value;
    const v = value as Json;
    if (v.Ref) return `<${v.Ref}>`;
    return (v['Fn::Join'][1] as unknown[]).map(text).join(v['Fn::Join'][0]);
  };
  /** IAM's wildcard match: `*` any run of characters (`/` included), `?` any one. */
  const matches = (pattern: string, resource: string) =>
    new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
    ).test(resource);
  /** An execute-api resource of the API's one stage, as `text` writes it. */
  const arnOf = (api: string, resourceName: string) =>
    `arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${api}>/$default/${resourceName}`;
  /** The resource a call of `method path` reaches, every path parameter given a value. */
  const called = (api: string, method: string, path: string) => arnOf(api, `${method}${path.replace(/\{[^}]+\}/g, 'x1')}`);

  it("gives each class with a route one policy, by its name, allowing execute-api:Invoke on its own routes and no other class's", () => {
    const [apiId] = ofType(template, 'AWS::ApiGatewayV2::Api')[0]!;
    const policies = ofType(template, 'AWS::IAM::ManagedPolicy').filter(([, p]) => /-producer-/.test(p.Properties.ManagedPolicyName));
    const withRoutes = PRODUCERS.filter((producer) => PRODUCER_ROUTES.some((r) => r.producer === producer));
    expect(policies.map(([, p]) => p.Properties.ManagedPolicyName).sort()).toEqual(
      withRoutes.map((producer) => `customer-api-staging-producer-${producer}`).sort(),
    );
    for (const producer of withRoutes) {
      const [policyId, policy] = policies.find(([, p]) => p.Properties.ManagedPolicyName.endsWith(`-producer-${producer}`))!;
      expect(template.Outputs[`ProducerPolicyArn${pascal(producer)}`].Value, producer).toEqual({ Ref: policyId });
      const all = policy.Properties.PolicyDocument.Statement as Json[];
      // One statement: invoke, allowed, unconditioned; never the table (nor anything else); the device platform's
      // other one consumes the stop-command queue (below).
      const statements = all.filter((s) => s.Sid !== 'StopCommandQueue');
      expect(all.length - statements.length, producer).toBe(producer === 'device-platform' ? 1 : 0);
      expect(statements, producer).toHaveLength(1);
      expect(statements[0]).toMatchObject({ Effect: 'Allow', Action: 'execute-api:Invoke' });
      expect(statements[0]!.Condition).toBeUndefined();
      expect(JSON.stringify(policy)).not.toMatch(/dynamodb:|"Resource":"\*"/);
      const resources = list(statements[0]!.Resource).map(text);
      expect(resources.sort(), producer).toEqual(invokePathsOf(producer).map((path) => arnOf(apiId, path)));
      for (const route of PRODUCER_ROUTES) {
        const allowed = resources.some((r) => matches(r, called(apiId, route.method, route.path)));
        expect(allowed, `${producer} → ${route.operation} (${route.producer})`).toBe(route.producer === producer);
        // Another method on the same path is no route of the class.
        expect(
          resources.some((r) => matches(r, called(apiId, 'POST', route.path))),
          `${producer} POST ${route.path}`,
        ).toBe(false);
      }
      expect(
        resources.some((r) => matches(r, called(apiId, 'PUT', '/admin/v1/apps'))),
        producer,
      ).toBe(false);
    }
  });

  it('lets the device platform consume the stop-command queue, that queue only, and never send to it', () => {
    const [, policy] = ofType(template, 'AWS::IAM::ManagedPolicy').find(([, p]) =>
      String(p.Properties.ManagedPolicyName ?? '').endsWith('-producer-device-platform'),
    )!;
    const statement = (policy.Properties.PolicyDocument.Statement as Json[]).find((s) => s.Sid === 'StopCommandQueue')!;
    const [queueId] = ofType(template, 'AWS::SQS::Queue').find(
      ([, q]) => q.Properties.QueueName === STOP_COMMAND_QUEUES.queueName('customer-api-staging'),
    )!;
    expect(statement).toMatchObject({ Effect: 'Allow', Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } });
    expect(statement.Condition).toBeUndefined();
    expect(list(statement.Action).sort()).toEqual(
      ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'].sort(),
    );
    expect([...STOP_COMMAND_CONSUMER_ACTIONS].sort()).toEqual(list(statement.Action).sort());
    // The queue's URL is an output the device platform's team reads.
    expect(template.Outputs.StopCommandQueueUrl.Value).toEqual({ Ref: queueId });
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
