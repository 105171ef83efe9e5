import { readFileSync } from 'node:fs';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAMILIES } from '#contract/routes';
import { PRODUCER_CADENCE_MINUTES, PRODUCERS } from '#lambdas/producers/routes';
import { ALARMS, alarmNamePrefix, ROLLBACK_WINDOW, runbookTable } from '#lib/alarm-catalogue';
import { smokeSecretName } from '#lib/constructs/safe-deploys';
import { FAMILY_TAG, LIVE_ALIAS } from '#lib/constructs/service-function';
import { FUNCTIONS, timeoutSecondsOf, WEBHOOK_FUNCTION_NAMES, type FunctionSpec } from '#lib/functions';
import { STAGE_TABLE, stageConfig, STAGES, type Stage } from '#lib/stages';
import { METRICS_NAMESPACE, SERVICE } from '#platform/observability';
import { STAGE_CONTEXT } from '../support/stage-context.js';
import { stageTemplates } from '../support/stage-template.js';

/**
 * Alarms that reach someone and deploys that roll back (lib/constructs/alarms.ts, safe-deploys.ts), on the
 * templates of every stage as `cdk synth` builds them.
 */
type Json = Record<string, any>;
const HTTP_FUNCTIONS = [...FAMILIES, 'admin-api', 'producer-api'] as const;
/** The functions no HTTP request waits on: their latency alarm is the longest invocation against the timeout. */
const BACKGROUND_FUNCTIONS = [...WEBHOOK_FUNCTION_NAMES, 'mail-events'] as const;
const ALL_FUNCTIONS = [...HTTP_FUNCTIONS, ...BACKGROUND_FUNCTIONS];

let templates: Record<Stage, Template>;
beforeAll(async () => {
  templates = await stageTemplates(STAGES);
});

const of = (template: Template, type: string) => template.findResources(type) as Record<string, Json>;
/** The stage's alarm topics the stack creates (the mail-events topic is the other one). */
const alarmTopics = (stage: Stage) =>
  Object.keys(of(templates[stage], 'AWS::SNS::Topic')).filter((id) =>
    /^customer-api-\w+-alarms$/.test(of(templates[stage], 'AWS::SNS::Topic')[id]!.Properties.TopicName),
  );
const alarms = (stage: Stage) => of(templates[stage], 'AWS::CloudWatch::Alarm');
const alarm = (stage: Stage, name: string): Json => {
  const found = Object.values(alarms(stage)).find((a) => a.Properties.AlarmName === `customer-api-${stage}-${name}`);
  if (!found) throw new Error(`no alarm ${name} in ${stage}`);
  return found.Properties;
};
const fnId = (stage: Stage, family: string) =>
  Object.entries(of(templates[stage], 'AWS::Lambda::Function')).find(([, fn]) =>
    (fn.Properties.Tags ?? []).some((t: Json) => t.Key === FAMILY_TAG && t.Value === family),
  )![0];
const aliasOf = (stage: Stage, family: string): [string, Json] =>
  Object.entries(of(templates[stage], 'AWS::Lambda::Alias')).find(([, a]) => a.Properties.FunctionName.Ref === fnId(stage, family))!;
const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_, _s: string, c: string) => c.toUpperCase());

describe('alarms', () => {
  it.each(STAGES)("%s: a producer that sends on a clock alarms when quiet for the stage's minutes, silence included", (stage) => {
    for (const producer of PRODUCERS) {
      const cadence = PRODUCER_CADENCE_MINUTES[producer];
      const name = `Producer${pascal(producer)}Quiet`;
      if (cadence === null) {
        expect(() => alarm(stage, name)).toThrow();
        continue;
      }
      const periods = Math.ceil(STAGE_TABLE[stage].alarms.thresholds.producerQuietMinutes / cadence);
      expect(alarm(stage, name)).toMatchObject({
        TreatMissingData: 'breaching',
        EvaluationPeriods: periods,
        DatapointsToAlarm: periods,
        Threshold: 1,
      });
      expect(JSON.stringify(alarm(stage, name).Metrics)).toContain(`{"Name":"producer","Value":"${producer}"}`);
    }
    expect(alarm(stage, 'ProducerRefusals')).toMatchObject({
      TreatMissingData: 'notBreaching',
      Threshold: STAGE_TABLE[stage].alarms.thresholds.producerRefusals,
    });
  });

  it.each(STAGES)(
    "%s: alarms on the age of the oldest stop command still queued, as the sweeper publishes it, at the stage's threshold",
    (stage) => {
      const [alarm] = Object.values(alarms(stage)).filter((a) => a.Properties.AlarmName === `${alarmNamePrefix(stage)}StopCommandAge`);
      expect(alarm!.Properties).toMatchObject({
        MetricName: 'StopCommandOldestQueuedSeconds',
        Namespace: METRICS_NAMESPACE,
        Statistic: 'Maximum',
        Period: 60,
        Threshold: STAGE_TABLE[stage].alarms.thresholds.stopCommandAgeSeconds,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
      expect(alarm!.Properties.Dimensions).toEqual(
        expect.arrayContaining([
          { Name: 'service', Value: SERVICE },
          { Name: 'stage', Value: stage },
        ]),
      );
    },
  );

  it.each(STAGES)('%s: every alarm notifies the stage topic when it fires and when it recovers', (stage) => {
    const topic = STAGE_CONTEXT[stage].alarmTopicArn ?? { Ref: alarmTopics(stage)[0] };
    const all = Object.values(alarms(stage));
    // Three a function, two more for its new version where a canary deploys; the API's two; token refusals; the
    // table's two; the webhooks' nine (the fan-out queue's age and dead letters, mail failures among them); failed
    // mail events; the alarm path check; an emergency stop left unreported; each producer sending on a clock going
    // quiet, and refused updates.
    const perFunction = STAGE_TABLE[stage].deployment === 'canary' ? 5 : 3;
    const producers = PRODUCERS.filter((p) => PRODUCER_CADENCE_MINUTES[p] !== null).length + 1;
    expect(all).toHaveLength(ALL_FUNCTIONS.length * perFunction + 17 + producers);
    for (const a of all) {
      expect(a.Properties.AlarmName.startsWith(alarmNamePrefix(stage)), a.Properties.AlarmName).toBe(true);
      expect(a.Properties.AlarmActions, a.Properties.AlarmName).toEqual([topic]);
      expect(a.Properties.OKActions, a.Properties.AlarmName).toEqual([topic]);
      expect(a.Properties.AlarmDescription, a.Properties.AlarmName).toContain('First: ');
    }
  });

  it.each(['dev', 'staging'] as const)(
    "%s: the topic's policy lets CloudWatch publish for this stage's alarms in this account, and refuses publishing without TLS",
    (stage) => {
      const topicId = alarmTopics(stage)[0]!;
      const policies = Object.values(of(templates[stage], 'AWS::SNS::TopicPolicy')).filter((p) =>
        (p.Properties.Topics as Json[]).some((t) => t.Ref === topicId),
      );
      // One policy: SNS keeps only the last one set, which replaces the topic's default policy.
      expect(policies).toHaveLength(1);
      const statements = policies[0]!.Properties.PolicyDocument.Statement as Json[];
      expect(statements).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Action: 'sns:Publish',
          Principal: '*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
      const allows = statements.filter((st) => st.Effect === 'Allow');
      expect(allows).toHaveLength(1);
      expect(allows[0]).toMatchObject({
        Action: 'sns:Publish',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Resource: { Ref: topicId },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      });
      const sourceArn = allows[0]!.Condition.ArnLike['aws:SourceArn']['Fn::Join'][1] as unknown[];
      expect(sourceArn).toEqual([
        'arn:',
        { Ref: 'AWS::Partition' },
        ':cloudwatch:',
        { Ref: 'AWS::Region' },
        ':',
        { Ref: 'AWS::AccountId' },
        `:alarm:${alarmNamePrefix(stage)}*`,
      ]);
    },
  );

  it('needs -c region for an imported topic, and the topic in that region: CloudWatch notifies only there', () => {
    const { region: _region, ...withoutRegion } = STAGE_CONTEXT.prod;
    expect(() => stageConfig('prod', { ...withoutRegion, edge: false })).toThrow(
      /^Stage prod: alarmTopicArn is in us-east-1: alarms notify only a topic in their own region, so pass -c region=us-east-1\.$/,
    );
    expect(() => stageConfig('prod', { ...STAGE_CONTEXT.prod, edge: false, region: 'eu-west-1' })).toThrow(/pass -c region=us-east-1/);
    expect(() => stageConfig('prod', STAGE_CONTEXT.prod)).not.toThrow();
  });

  it.each(STAGES)('%s: an alarm to check the alarm path by hand, whose metric nothing publishes and no deployment watches', (stage) => {
    const [id] = Object.entries(alarms(stage)).find(([, a]) => a.Properties.AlarmName === `${alarmNamePrefix(stage)}AlarmPathCheck`)!;
    expect(alarm(stage, 'AlarmPathCheck')).toMatchObject({ Namespace: METRICS_NAMESPACE, MetricName: 'AlarmPathCheck', Threshold: 1 });
    expect(JSON.stringify(of(templates[stage], 'AWS::CodeDeploy::DeploymentGroup'))).not.toContain(id);
  });

  it('creates a topic with the stage e-mail subscribed, or imports the stage topic and creates none', () => {
    expect(alarmTopics('dev')).toHaveLength(1);
    expect(Object.values(of(templates.dev, 'AWS::SNS::Subscription')).filter((s) => s.Properties.Protocol === 'email')).toHaveLength(0);
    templates.staging.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: STAGE_CONTEXT.staging.alarmEmail });
    templates.staging.hasResourceProperties('AWS::SNS::Topic', { TopicName: 'customer-api-staging-alarms' });
    expect(alarmTopics('prod')).toHaveLength(0);
  });

  it.each(STAGES)("%s: each function's errors, throttles and latency at the stage's thresholds", (stage) => {
    const t = STAGE_TABLE[stage].alarms.thresholds;
    for (const name of ALL_FUNCTIONS) {
      const id = pascal(name);
      const errors = alarm(stage, `${id}Errors`);
      expect(errors).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Errors', Threshold: t.functionErrors, Period: 60 });
      // The live alias's own errors (dimension Resource = <function>:live): what a canary's new version adds shows here.
      const resource = (errors.Dimensions as Json[]).find((d) => d.Name === 'Resource');
      expect(JSON.stringify(resource?.Value), name).toContain(`:${LIVE_ALIAS}`);
      expect(JSON.stringify(resource?.Value), name).toContain(fnId(stage, name));
      expect(alarm(stage, `${id}Throttles`)).toMatchObject({ MetricName: 'Throttles', Threshold: t.functionThrottles });
    }
    for (const name of HTTP_FUNCTIONS) {
      expect(alarm(stage, `${pascal(name)}Latency`), name).toMatchObject({
        MetricName: 'Duration',
        ExtendedStatistic: 'p99',
        Threshold: t.apiLatencyP99Ms,
      });
    }
    for (const name of BACKGROUND_FUNCTIONS) {
      const timeoutMs = timeoutSecondsOf(name) * 1000;
      expect(alarm(stage, `${pascal(name)}NearTimeout`), name).toMatchObject({
        MetricName: 'Duration',
        Statistic: 'Maximum',
        Threshold: (t.delivererDurationPercent * timeoutMs) / 100,
      });
    }
  });

  it.each(STAGES)('%s: the API, token endpoint, table and webhooks at the stage thresholds', (stage) => {
    const t = STAGE_TABLE[stage].alarms.thresholds;
    const rate = alarm(stage, 'ApiServerErrors');
    expect(rate.Threshold).toBe(t.apiServerErrorPercent);
    const expression = (rate.Metrics as Json[]).find((m) => m.Expression)!.Expression as string;
    expect(expression).toBe('IF(requests >= 10, 100 * errors / requests, 0)');
    expect(
      (rate.Metrics as Json[])
        .map((m) => m.MetricStat?.Metric.MetricName)
        .filter(Boolean)
        .sort(),
    ).toEqual(['5xx', 'Count']);
    expect(alarm(stage, 'ApiLatency')).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      ExtendedStatistic: 'p99',
      Threshold: t.apiLatencyP99Ms,
    });
    const token = alarm(stage, 'TokenRefusals');
    expect(token).toMatchObject({ Namespace: METRICS_NAMESPACE, MetricName: 'ClientErrors', Threshold: t.tokenRefusals });
    expect(token.Dimensions).toEqual(
      expect.arrayContaining([
        { Name: 'api', Value: 'token' },
        { Name: 'service', Value: SERVICE },
        { Name: 'stage', Value: stage },
      ]),
    );
    for (const [name, metric, threshold] of [
      ['TableThrottles', 'ThrottledRequests', t.tableThrottles],
      ['TableSystemErrors', 'SystemErrors', t.tableSystemErrors],
    ] as const) {
      const a = alarm(stage, name);
      expect(a.Threshold, name).toBe(threshold);
      expect(JSON.stringify(a.Metrics), name).toContain(`"MetricName":"${metric}"`);
    }
    expect(alarm(stage, 'DeadLetters').Threshold).toBe(t.deadLetters);
    expect(alarm(stage, 'MailEventFailures').Threshold).toBe(t.deadLetters);
    expect(alarm(stage, 'QueueAge')).toMatchObject({ MetricName: 'ApproximateAgeOfOldestMessage', Threshold: t.oldestMessageSeconds });
    expect(alarm(stage, 'QueueInFlight')).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesNotVisible',
      Threshold: t.messagesInFlight,
    });
    expect(alarm(stage, 'DeliveryFailures')).toMatchObject({ MetricName: 'DeliveryFailures', Threshold: t.deliveryFailures });
    expect(alarm(stage, 'DeliveriesStranded')).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: 'DeliveryStranded',
      Threshold: t.strandedDeliveries,
    });
    expect(alarm(stage, 'DeliveriesRequeued')).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: 'DeliveryRequeued',
      Threshold: t.strandedDeliveries,
    });
    expect(alarm(stage, 'MailFailures')).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: 'MailFailed',
      Threshold: t.mailFailures,
    });
  });

  it('has every alarm of the catalogue in the runbook of docs/operations.md, thresholds as in the stage table', () => {
    const docs = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    // Regenerate with: npx tsx -e "import('#lib/alarm-catalogue').then((m) => console.log(m.runbookTable()))"
    expect(docs).toContain(runbookTable());
    expect(runbookTable().split('\n')).toHaveLength(Object.keys(ALARMS).length + 2);
  });
});

describe('safe deploys', () => {
  it.each(STAGES)('%s: every function is invoked through its live alias on the current version', (stage) => {
    for (const name of ALL_FUNCTIONS) {
      const [, alias] = aliasOf(stage, name);
      expect(alias.Properties.Name, name).toBe(LIVE_ALIAS);
      expect(Object.keys(of(templates[stage], 'AWS::Lambda::Version'))).toContain(alias.Properties.FunctionVersion['Fn::GetAtt'][0]);
    }
  });

  it('deploys dev all at once: no CodeDeploy, no smoke hook', () => {
    expect(Object.keys(of(templates.dev, 'AWS::CodeDeploy::DeploymentGroup'))).toHaveLength(0);
    expect(Object.keys(of(templates.dev, 'AWS::CodeDeploy::Application'))).toHaveLength(0);
    expect(JSON.stringify(of(templates.dev, 'AWS::Lambda::Function'))).not.toContain('smoke-hook');
  });

  it.each(['staging', 'prod'] as const)(
    "%s: a 10 %% canary for 5 minutes per function, rolled back on its new version's error or latency alarm or a failed smoke run",
    (stage) => {
      const groups = Object.values(of(templates[stage], 'AWS::CodeDeploy::DeploymentGroup'));
      expect(groups).toHaveLength(ALL_FUNCTIONS.length);
      const hookId = fnId(stage, 'smoke-hook');
      for (const name of ALL_FUNCTIONS) {
        const [aliasId, alias] = aliasOf(stage, name);
        const update = (templates[stage].toJSON().Resources[aliasId] as Json).UpdatePolicy.CodeDeployLambdaAliasUpdate;
        expect(update.AfterAllowTrafficHook, name).toEqual({ Ref: expect.stringMatching(/SmokeHook/) });
        const group =
          groups.find(
            (g) => g.Properties.DeploymentGroupName === undefined && JSON.stringify(g).includes(update.DeploymentGroupName.Ref),
          ) ?? of(templates[stage], 'AWS::CodeDeploy::DeploymentGroup')[update.DeploymentGroupName.Ref]!;
        expect(group.Properties.DeploymentConfigName, name).toBe('CodeDeployDefault.LambdaCanary10Percent5Minutes');
        expect(group.Properties.AutoRollbackConfiguration, name).toEqual({
          Enabled: true,
          Events: expect.arrayContaining(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_REQUEST', 'DEPLOYMENT_STOP_ON_ALARM']),
        });
        const watched = (group.Properties.AlarmConfiguration.Alarms as Json[]).map(
          (a) => alarms(stage)[a.Name.Ref]!.Properties.AlarmName as string,
        );
        const latency = BACKGROUND_FUNCTIONS.includes(name as never) ? 'NearTimeout' : 'Latency';
        // The new version's own alarms; the count alarms of the live alias page and roll nothing back.
        expect(watched.sort(), name).toEqual(
          [`customer-api-${stage}-${pascal(name)}NewVersionErrors`, `customer-api-${stage}-${pascal(name)}NewVersion${latency}`].sort(),
        );
        expect(alias.Properties.FunctionName.Ref).not.toBe(hookId);
      }
      // The hook reads the smoke credentials and reports to CodeDeploy; CodeDeploy may invoke it.
      const hook = of(templates[stage], 'AWS::Lambda::Function')[hookId]!;
      expect(hook.Properties.Environment.Variables.SMOKE_SECRET_ID).toBe(smokeSecretName(stage));
      expect(hook.Properties.Environment.Variables.SMOKE_BASE_URL).toBeDefined();
      const policies = JSON.stringify(of(templates[stage], 'AWS::IAM::Policy'));
      expect(policies).toContain('codedeploy:PutLifecycleEventHookExecutionStatus');
      expect(policies).toContain(`secret:${smokeSecretName(stage)}-??????`);
    },
  );

  it.each(['staging', 'prod'] as const)(
    '%s: the rollback alarms watch the new version alone (ExecutedVersion) over 2 of 3 minutes, and are updated before the alias',
    (stage) => {
      const t = STAGE_TABLE[stage].alarms.thresholds;
      for (const name of ALL_FUNCTIONS) {
        const [aliasId, alias] = aliasOf(stage, name);
        const versionId = alias.Properties.FunctionVersion['Fn::GetAtt'][0] as string;
        const background = BACKGROUND_FUNCTIONS.includes(name as never);
        const rollback = [
          [`${pascal(name)}NewVersionErrors`, 'Errors', t.rollbackErrors],
          [
            `${pascal(name)}NewVersion${background ? 'NearTimeout' : 'Latency'}`,
            'Duration',
            background ? (t.delivererDurationPercent * timeoutSecondsOf(name) * 1000) / 100 : t.apiLatencyP99Ms,
          ],
        ] as const;
        for (const [id, metric, threshold] of rollback) {
          const a = alarm(stage, id);
          expect(a, id).toMatchObject({
            MetricName: metric,
            Threshold: threshold,
            EvaluationPeriods: ROLLBACK_WINDOW.of,
            DatapointsToAlarm: ROLLBACK_WINDOW.datapoints,
          });
          expect(a.Dimensions, id).toContainEqual({ Name: 'ExecutedVersion', Value: { 'Fn::GetAtt': [versionId, 'Version'] } });
          const alarmId = Object.entries(alarms(stage)).find(([, x]) => x.Properties.AlarmName === a.AlarmName)![0];
          expect((templates[stage].toJSON().Resources[aliasId] as Json).DependsOn, id).toContain(alarmId);
        }
      }
      // One failed invocation pages and rolls nothing back: more than one minute, and more than one error in prod.
      expect(ROLLBACK_WINDOW.datapoints).toBeGreaterThan(1);
      expect(STAGE_TABLE.prod.alarms.thresholds.rollbackErrors).toBeGreaterThan(1);
    },
  );

  it('dev: no rollback alarms, as nothing rolls back', () => {
    expect(Object.values(alarms('dev')).filter((a) => /NewVersion/.test(a.Properties.AlarmName))).toEqual([]);
  });

  it('prod: token and discovery aliases keep provisioned concurrency; dev and staging none', () => {
    for (const name of ['token', 'discovery'] as const) {
      expect(aliasOf('prod', name)[1].Properties.ProvisionedConcurrencyConfig).toEqual({
        ProvisionedConcurrentExecutions: STAGE_TABLE.prod.provisionedConcurrency[name],
      });
      expect(aliasOf('dev', name)[1].Properties.ProvisionedConcurrencyConfig).toBeUndefined();
      expect(aliasOf('staging', name)[1].Properties.ProvisionedConcurrencyConfig).toBeUndefined();
    }
    expect(aliasOf('prod', 'bevq')[1].Properties.ProvisionedConcurrencyConfig).toBeUndefined();
  });

  it.each(STAGES)("%s: the deliverer reserves its event source's maximum, the stage's; every other function its row's", (stage) => {
    const functions = of(templates[stage], 'AWS::Lambda::Function');
    expect(functions[fnId(stage, 'webhook-deliverer')]!.Properties.ReservedConcurrentExecutions).toBe(
      STAGE_TABLE[stage].delivererConcurrency,
    );
    const mapping = Object.values(of(templates[stage], 'AWS::Lambda::EventSourceMapping')).find((m) =>
      JSON.stringify(m.Properties.FunctionName).includes(`"${aliasOf(stage, 'webhook-deliverer')[0]}"`),
    );
    expect(mapping!.Properties.ScalingConfig).toEqual({ MaximumConcurrency: STAGE_TABLE[stage].delivererConcurrency });
    for (const name of ALL_FUNCTIONS.filter((n) => n !== 'webhook-deliverer')) {
      const spec: FunctionSpec = FUNCTIONS[name];
      expect(functions[fnId(stage, name)]!.Properties.ReservedConcurrentExecutions, name).toBe(spec.reservedConcurrency);
    }
  });

  it.each(STAGES)('%s: the sweeper runs once a minute with no retries, and an event a minute old is dropped for the next run', (stage) => {
    const [aliasId] = aliasOf(stage, 'webhook-sweeper');
    const configs = Object.values(of(templates[stage], 'AWS::Lambda::EventInvokeConfig')).filter(
      (c) => c.Properties.FunctionName.Ref === fnId(stage, 'webhook-sweeper'),
    );
    expect(configs).toHaveLength(1);
    expect(configs[0]!.Properties).toMatchObject({ MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 });
    expect(JSON.stringify(configs[0]!.Properties.Qualifier)).toContain(aliasId);
    const [rule] = Object.values(of(templates[stage], 'AWS::Events::Rule'));
    expect(rule!.Properties.ScheduleExpression).toBe('rate(1 minute)');
    expect(rule!.Properties.Targets[0].RetryPolicy).toEqual({ MaximumRetryAttempts: 0 });
  });

  it('refuses a deliverer concurrency the SQS event source cannot take (2 to 1,000)', () => {
    for (const bad of [1, 1_001, 2.5]) {
      expect(() => stageConfig('dev', { ...STAGE_CONTEXT.dev, delivererConcurrency: bad }), String(bad)).toThrow(/delivererConcurrency/);
    }
  });
});

describe("docs/operations.md's first deploy", () => {
  const page = () => readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const section = () => page().split('## First deploy of a stage\n')[1]!.split('\n## ')[0]!;

  it("states each stage's resource and alarm counts as its template has them", () => {
    const counts = (stage: Stage) => {
      const resources = Object.values(templates[stage].toJSON().Resources as Record<string, { Type: string }>);
      return [resources.length, resources.filter((r) => r.Type === 'AWS::CloudWatch::Alarm').length];
    };
    const [dev, staging, prod] = STAGES.map(counts) as [number[], number[], number[]];
    expect(section()).toContain(
      `dev ${dev[0]} resources and ${dev[1]} alarms, staging ${staging[0]} and ${staging[1]}, prod ${prod[0]} and ${prod[1]}`,
    );
  });

  it('names every output of every stage with what reads it, and no output the stack does not declare', () => {
    // A row `Name<Class>` stands for one output per class of producer (`NamePosSync`, …).
    const documented = [...section().matchAll(/^\| `(\w+)(<Class>)?` \|/gm)].map((m) => ({ name: m[1]!, perClass: Boolean(m[2]) }));
    const names = documented.flatMap(({ name, perClass }) => (perClass ? PRODUCERS.map((p) => `${name}${pascal(p)}`) : [name]));
    const outputs = new Set(STAGES.flatMap((stage) => Object.keys(templates[stage].toJSON().Outputs as object)));
    for (const output of outputs) expect(names, output).toContain(output);
    const source = ['stack.ts', 'constructs/api-domain.ts']
      .map((f) => readFileSync(new URL(`../../lib/${f}`, import.meta.url), 'utf8'))
      .join('\n');
    for (const { name, perClass } of documented)
      expect(source, name).toContain(perClass ? `CfnOutput(this, \`${name}\${` : `CfnOutput(this, '${name}'`);
  });

  it('stops each command on an empty value: every variable it uses comes with ${VAR:?…} at least once', () => {
    for (const name of ['STAGE', 'ACCOUNT', 'REGION', 'MAIL_FROM', 'OPERATOR_ROLE'])
      expect(section(), name).toContain(`\${${name}:?set ${name}}`);
  });
});
