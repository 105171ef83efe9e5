import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { createDb } from '#data/store';
import { type Store, createStore } from '#data/repositories';
import { Logger } from '#platform/observability';
import { type Clock, awsClients, buildMessagingDeps, type AwsClients, type MessagingDeps } from '#platform/deps';
import { configFromEnv } from '#platform/config';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { sesMailer } from '#platform/ses-mailer';
import { localEndpoint } from '#local/endpoints';
import { chosenRuntimeFile, readRuntimeFile } from '#local/runtime-file';
import { LOCAL_THROTTLE } from '#local/stage-throttle';
import { listenInboxAt, type ListenInbox } from '#local/listen-inbox';

/**
 * Which deployment the CLI talks to: a deployed stage (its CloudFormation
 * outputs, default AWS credentials) or the local runtime `npm start` records.
 */

const stackName = (stage: string) => `CustomerApi-${stage}`;
const NOT_RUNNING =
  'no local runtime is running on this data folder: start it with `npm start`, or pass --port (a runtime elsewhere or in memory) or --stage';

export type TargetChoice = {
  stage?: string | undefined;
  region?: string | undefined;
  runtimeFile?: string | undefined;
  port?: number | undefined;
};

export type Target = {
  /** For --debug: "stage prod (CustomerApi-prod)", "local runtime http://localhost:3000 (.local/runtime-data-….json)". */
  label: string;
  tableName: string;
  apiUrl: string | null;
  webhookQueueUrl: string | null;
  webhookDlqUrl: string | null;
  store: Store;
  /** MessagingDeps as the target's functions have them: its queues, its mail, the system resolver. */
  deps(clock: Clock): MessagingDeps;
  close(): void;
};

type TargetClients = {
  tableName: string;
  clients: AwsClients & { ses: SESv2Client };
  store: Store;
  queueUrl: string | null;
  dlqUrl: string | null;
  allowLoopback: boolean;
  /** The local runtime's listen inbox, the one loopback origin it accepts; null for a stage. */
  listenInbox: ListenInbox | null;
  /** The target's throttle, requests a second: no application may be given more than 60 times it a minute. */
  stageRateLimit: number;
  /** The SES configuration set the stage's owner mail is sent with ('' : none, the local runtime). */
  mailConfigurationSet: string;
};

function depsOf(t: TargetClients, clock: Clock): MessagingDeps {
  const config = {
    ...configFromEnv(),
    tableName: t.tableName,
    webhookQueueUrl: t.queueUrl ?? '',
    webhookDlqUrl: t.dlqUrl ?? '',
    webhookAllowLoopback: t.allowLoopback,
    webhookListenInbox: t.listenInbox,
    stageRateLimit: t.stageRateLimit,
    mailConfigurationSet: t.mailConfigurationSet,
  };
  return buildMessagingDeps(t.clients, {
    config,
    mailer: sesMailer(config.mailFrom, t.clients.ses, config.mailConfigurationSet),
    store: t.store,
    clock,
    // Admin output goes to stdout; the library's own logs stay quiet.
    logger: new Logger({ serviceName: 'customer-api-admin', logLevel: 'SILENT' }),
    // No Lambda flushes metrics here.
    metrics: null,
  });
}

/** The target cannot be reached as asked (no runtime, no stack); exit code 2. */
export class TargetError extends Error {}

export function openTarget(choice: TargetChoice, env: NodeJS.ProcessEnv): Promise<Target> {
  if (choice.stage) return openStage(choice.stage, choice.region);
  const file = chosenRuntimeFile({ file: choice.runtimeFile, port: choice.port }, env);
  if (!file) return Promise.reject(new TargetError(`no local runtime is running on port ${choice.port}`));
  return Promise.resolve(openLocal(file));
}

async function openStage(stage: string, region: string | undefined): Promise<Target> {
  const clientConfig = region ? { region } : {};
  const name = stackName(stage);
  const cfn = new CloudFormationClient(clientConfig);
  let outputs: Record<string, string>;
  try {
    const { Stacks } = await cfn.send(new DescribeStacksCommand({ StackName: name }));
    outputs = Object.fromEntries((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']));
  } catch (err) {
    if ((err as Error).name === 'ValidationError')
      throw new TargetError(`stack ${name} not found: is stage ${stage} deployed in this region?`);
    throw err;
  } finally {
    cfn.destroy();
  }
  const tableName = outputs.TableName;
  if (!tableName) throw new TargetError(`stack ${name} has no TableName output`);
  const aws = { ...awsClients({ dynamodb: clientConfig, sqs: clientConfig }), ses: new SESv2Client(clientConfig) };
  const store = createStore(createDb(tableName, aws.dynamodb));
  const clients = {
    tableName,
    clients: aws,
    store,
    queueUrl: outputs.WebhookQueueUrl ?? null,
    dlqUrl: outputs.WebhookDlqUrl ?? null,
    allowLoopback: false,
    listenInbox: null,
    // The deployed stage's own throttle; a stack deployed before this output existed bounds limits by the data design only.
    stageRateLimit: outputs.StageRateLimit ? Number(outputs.StageRateLimit) : Infinity,
    // Mail the CLI sends reports its bounces like the functions' (docs/decisions/mail-suppression.md).
    mailConfigurationSet: outputs.MailConfigurationSet ?? '',
  };
  return {
    label: `stage ${stage} (${name})`,
    tableName,
    apiUrl: outputs.ApiUrl ?? null,
    webhookQueueUrl: outputs.WebhookQueueUrl ?? null,
    webhookDlqUrl: outputs.WebhookDlqUrl ?? null,
    store,
    deps: (clock) => depsOf(clients, clock),
    close: () => Object.values(aws).forEach((client) => client.destroy()),
  };
}

function openLocal(file: string): Target {
  let info;
  try {
    info = readRuntimeFile(file);
  } catch (err) {
    throw new TargetError((err as Error).message);
  }
  if (!info) throw new TargetError(NOT_RUNNING);
  const aws = {
    ...awsClients({
      dynamodb: localEndpoint(info.dynamoEndpoint, info.region, info.externalDynamo ? null : info.credentials),
      sqs: localEndpoint(info.sqsEndpoint, info.region, info.externalSqs ? null : info.credentials),
    }),
    ses: new SESv2Client(localEndpoint(info.sesEndpoint, info.region, info.credentials)),
  };
  const store = createStore(createDb(info.tableName, aws.dynamodb));
  const clients = {
    tableName: info.tableName,
    clients: aws,
    store,
    queueUrl: info.webhookQueueUrl,
    dlqUrl: info.webhookDlqUrl,
    allowLoopback: info.webhookAllowLoopback === true,
    listenInbox: listenInboxAt(info.webhookListenInbox),
    stageRateLimit: LOCAL_THROTTLE.rateLimit,
    mailConfigurationSet: '',
  };
  return {
    label: `local runtime ${info.url} (${file})`,
    tableName: info.tableName,
    apiUrl: info.url,
    webhookQueueUrl: info.webhookQueueUrl,
    webhookDlqUrl: info.webhookDlqUrl,
    store,
    deps: (clock) => depsOf(clients, clock),
    close: () => Object.values(aws).forEach((client) => client.destroy()),
  };
}
