import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAMILY_TAG, LIVE_ALIAS } from '#lib/constructs/service-function';
import { FUNCTIONS } from '#lib/functions';
import { CustomerApiStack } from '#lib/stack';
import { stageConfig, type StageContext } from '#lib/stages';
import { STAGE_CONTEXT } from '../support/stage-context.js';
import { testApp } from '../support/stage-template.js';

/** The configuration set owner mail is sent with, its event destination, the topic and the function that marks addresses. */

type Json = Record<string, any>;
const list = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

function synth(context: StageContext): Template {
  const app = testApp();
  const stack = new CustomerApiStack(app, 'CustomerApi-dev', { config: stageConfig('dev', { ...STAGE_CONTEXT.dev, ...context }) });
  expect(Annotations.fromStack(stack).findWarning('*', Match.anyValue())).toEqual([]);
  return Template.fromStack(stack);
}

const of = (t: Template, type: string) => t.findResources(type) as Record<string, Json>;
const fnOf = (t: Template, family: string): [string, Json] => {
  const found = Object.entries(of(t, 'AWS::Lambda::Function')).filter(([, fn]) =>
    (fn.Properties.Tags ?? []).some((tag: Json) => tag.Key === FAMILY_TAG && tag.Value === family),
  );
  expect(found, family).toHaveLength(1);
  return found[0]!;
};
const statementsOf = (t: Template, fn: Json) =>
  Object.values(of(t, 'AWS::IAM::Policy'))
    .filter((p) => (p.Properties.Roles as Json[]).some((r) => r.Ref === fn.Properties.Role['Fn::GetAtt'][0]))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Json[]);
const mailTopic = (t: Template): [string, Json] =>
  Object.entries(of(t, 'AWS::SNS::Topic')).find(([, topic]) => topic.Properties.TopicName === 'customer-api-dev-mail-events')!;

const failureQueue = (t: Template): [string, Json] =>
  Object.entries(of(t, 'AWS::SQS::Queue')).find(([, q]) => q.Properties.QueueName === 'customer-api-dev-mail-events-failed')!;

describe('mail events: the configuration set the stack creates (default)', () => {
  let template: Template;
  beforeAll(() => {
    template = synth({});
  });

  it('creates customer-api-<stage> with one event destination: bounces and complaints to the mail-events topic', () => {
    template.hasResourceProperties('AWS::SES::ConfigurationSet', { Name: 'customer-api-dev' });
    const destinations = Object.values(of(template, 'AWS::SES::ConfigurationSetEventDestination'));
    expect(destinations).toHaveLength(1);
    const [topicId] = mailTopic(template);
    expect(destinations[0]!.Properties.EventDestination).toMatchObject({
      Enabled: true,
      MatchingEventTypes: ['bounce', 'complaint'],
      SnsDestination: { TopicARN: { Ref: topicId } },
    });
  });

  it('subscribes the mail-events function, through its live alias, and only it', () => {
    const [topicId, topic] = mailTopic(template);
    expect(topic.Properties.TopicName).toBe('customer-api-dev-mail-events');
    const subscriptions = Object.values(of(template, 'AWS::SNS::Subscription')).filter((s) => s.Properties.TopicArn.Ref === topicId);
    expect(subscriptions).toHaveLength(1);
    expect(subscriptions[0]!.Properties.Protocol).toBe('lambda');
    const aliasId = subscriptions[0]!.Properties.Endpoint.Ref as string;
    const alias = of(template, 'AWS::Lambda::Alias')[aliasId]!;
    expect(alias.Properties.Name).toBe(LIVE_ALIAS);
    expect(alias.Properties.FunctionName.Ref).toBe(fnOf(template, 'mail-events')[0]);
  });

  it('grants the mail-events function exactly its row: PutItem on the table, no mail, and sending to its failure queue only', () => {
    const [, fn] = fnOf(template, 'mail-events');
    const statements = statementsOf(template, fn);
    const actions = statements.flatMap((s) => list(s.Action as string | string[]));
    expect(actions.filter((a) => a.startsWith('dynamodb:')).sort()).toEqual(
      FUNCTIONS['mail-events'].tableActions.map((a) => `dynamodb:${a}`),
    );
    const [queueId] = failureQueue(template);
    const others = statements.filter((s) => list(s.Action as string | string[]).some((a) => !/^(dynamodb|logs):/.test(a)));
    // What Lambda needs to put a record there (aws-cdk-lib's grantSendMessages), on that queue alone.
    expect(others).toHaveLength(1);
    expect(others[0]!.Resource).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
    expect(list(others[0]!.Action as string | string[]).sort()).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
    expect(fn.Properties.Environment.Variables.MAIL_FROM).toBeUndefined();
  });

  it("sends an event the function failed on after Lambda's retries to its own queue, kept 14 days, encrypted, alarmed", () => {
    const [queueId, queue] = failureQueue(template);
    expect(queue.Properties).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
    const [fnId] = fnOf(template, 'mail-events');
    const configs = Object.values(of(template, 'AWS::Lambda::EventInvokeConfig')).filter((c) => c.Properties.FunctionName.Ref === fnId);
    expect(configs).toHaveLength(1);
    // On the live alias, which SNS invokes.
    const [aliasId] = Object.entries(of(template, 'AWS::Lambda::Alias')).find(([, a]) => a.Properties.FunctionName.Ref === fnId)!;
    expect(JSON.stringify(configs[0]!.Properties.Qualifier)).toContain(aliasId);
    expect(configs[0]!.Properties.DestinationConfig).toEqual({ OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } });
    const alarm = Object.values(of(template, 'AWS::CloudWatch::Alarm')).find(
      (a) => a.Properties.AlarmName === 'customer-api-dev-MailEventFailures',
    )!;
    // Visible plus in flight: reading a record to replay it does not clear the alarm.
    expect(JSON.stringify(alarm.Properties.Metrics)).toContain(`"QueueName","Value":{"Fn::GetAtt":["${queueId}","QueueName"]}`);
    expect((alarm.Properties.Metrics as Json[]).find((m) => m.Expression)!.Expression).toBe('visible + inFlight');
    expect((template.toJSON().Outputs as Json).MailEventsFailureQueueUrl.Value).toEqual({ Ref: queueId });
  });

  it('has every mailing function send with the set, and allowed to name only that one', () => {
    for (const name of ['admin-api', 'webhook-sweeper']) {
      const [, fn] = fnOf(template, name);
      expect(fn.Properties.Environment.Variables.MAIL_CONFIGURATION_SET, name).toEqual({ Ref: expect.stringMatching(/ConfigurationSet/) });
      const ses = statementsOf(template, fn).filter((s) => list(s.Action as string | string[]).includes('ses:SendEmail'));
      expect(ses, name).toHaveLength(1);
      expect(JSON.stringify(ses[0]!.Resource), name).toMatch(/:configuration-set\/",\{"Ref":"[^"]*ConfigurationSet/);
    }
  });
});

describe('mail events: an imported configuration set', () => {
  let template: Template;
  beforeAll(() => {
    template = synth({ mailConfigurationSet: 'platform-owner-mail' });
  });

  it('creates no set or event destination, sends with the named one, and lets SES publish to the topic for that set only', () => {
    expect(Object.keys(of(template, 'AWS::SES::ConfigurationSet'))).toHaveLength(0);
    expect(Object.keys(of(template, 'AWS::SES::ConfigurationSetEventDestination'))).toHaveLength(0);
    expect(fnOf(template, 'webhook-sweeper')[1].Properties.Environment.Variables.MAIL_CONFIGURATION_SET).toBe('platform-owner-mail');
    const [topicId] = mailTopic(template);
    const policy = Object.values(of(template, 'AWS::SNS::TopicPolicy')).find((p) =>
      (p.Properties.Topics as Json[]).some((t) => t.Ref === topicId),
    )!;
    const publish = (policy.Properties.PolicyDocument.Statement as Json[]).find((s) => s.Principal?.Service === 'ses.amazonaws.com')!;
    expect(publish.Action).toBe('sns:Publish');
    expect(JSON.stringify(publish.Condition.StringEquals['AWS:SourceArn'])).toContain(':configuration-set/platform-owner-mail');
    expect(template.toJSON().Outputs.MailEventsTopicArn.Value).toEqual({ Ref: topicId });
    // The admin CLI sends with it too.
    expect(template.toJSON().Outputs.MailConfigurationSet.Value).toBe('platform-owner-mail');
  });

  it('refuses a name SES would refuse, naming the stage and the field', () => {
    expect(() => stageConfig('dev', { ...STAGE_CONTEXT.dev, mailConfigurationSet: 'has spaces' })).toThrow(
      /Stage dev: mailConfigurationSet "has spaces" is not an SES configuration set name/,
    );
  });
});
