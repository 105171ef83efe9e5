import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type Endpoint } from '#platform/deps';
import { buildMessagingDeps, type MessagingDepsOptions } from '#lambdas/webhooks/deps';
import { sqsClient } from '#lambdas/webhooks/messages';
import { sesMailer } from '#platform/ses-mailer';
import type { FunctionName } from '#lib/functions';
import { compileGuard, compileStatements, type Guard, guardClient, type LocalResources } from './iam-guard.js';
import type { RolePolicies } from './iam-policies.js';
import { LOCAL_REPOSITORIES, type LocalDeps, type LocalStore } from './repositories.js';

/**
 * The functions whose Lambda entry builds an SES mailer (lambdas/admin/admin.ts, lambdas/upkeep/sweeper.ts);
 * the others get none, as in AWS.
 */
const MAILING: ReadonlySet<FunctionName> = new Set(['admin-api', 'webhook-sweeper']);

export type FunctionDeps = {
  /** The deps one function runs with: its own DynamoDB, SQS and SES clients, guarded by its role (unless IAM is off). */
  depsOf(name: FunctionName): LocalDeps;
  /** That function's SQS client (the deliverer's event source polls with the deliverer's role, as Lambda does). */
  sqsOf(name: FunctionName): SQSClient;
  /** What a producer's policy allows (execute-api:Invoke on its routes, the device platform's queue); null when IAM is off. */
  producerGuard(producer: string): Guard | null;
  /** An SQS client of a producer's own, refused what its policy does not allow (the simulated gateway's). */
  producerSqs(producer: string): SQSClient;
  destroy(): void;
};

/**
 * Per-function deps for the local runtime. Each function gets clients of its own, built lazily; with `iam`, each
 * client refuses what the function's synthesized role does not allow (local/iam-guard.ts). Middleware added
 * later to the runtime's own clients (`observe`: benchmarks and tests count calls there) is added to every
 * function's clients too, so they keep seeing every call the service makes.
 */
export function functionDeps(options: {
  endpoints: { dynamodb: Endpoint; sqs: Endpoint; ses: Endpoint };
  base: MessagingDepsOptions<LocalStore>;
  iam: { policies: RolePolicies; local: LocalResources; callLog?: string | undefined } | null;
  observe: { dynamodb: DynamoDBClient; sqs: SQSClient; ses?: SESv2Client };
}): FunctionDeps {
  const built = new Map<FunctionName, { deps: LocalDeps; dynamodb: DynamoDBClient; sqs: SQSClient; ses: SESv2Client }>();
  const mirrors = {
    dynamodb: mirror(options.observe.dynamodb),
    sqs: mirror(options.observe.sqs),
    ses: options.observe.ses ? mirror(options.observe.ses) : null,
  };
  const build = (name: FunctionName) => {
    let entry = built.get(name);
    if (entry) return entry;
    const dynamodb = new DynamoDBClient(options.endpoints.dynamodb);
    const sqs = sqsClient(options.endpoints.sqs);
    const ses = new SESv2Client(options.endpoints.ses);
    if (options.iam) {
      const guard = compileGuard(name, options.iam.policies, options.iam.local);
      const { local, callLog } = options.iam;
      guardClient(dynamodb, 'dynamodb', guard, local, { callLog });
      guardClient(sqs, 'sqs', guard, local, { callLog });
      guardClient(ses, 'ses', guard, local, { callLog });
    }
    mirrors.dynamodb.to(dynamodb);
    mirrors.sqs.to(sqs);
    mirrors.ses?.to(ses);
    const config = options.base.config!;
    const deps = buildMessagingDeps<LocalStore>(
      { dynamodb, sqs },
      { ...options.base, ...(MAILING.has(name) ? { mailer: sesMailer(config.mailFrom, ses, config.mailConfigurationSet) } : {}) },
      LOCAL_REPOSITORIES,
    );
    // The stop-command queue through the function's own (guarded) SQS client: only a role that may send reaches it.
    deps.stopCommands = {
      async send(body) {
        await sqs.send(new SendMessageCommand({ QueueUrl: config.stopCommandQueueUrl, MessageBody: body }));
      },
    };
    entry = { deps, dynamodb, sqs, ses };
    built.set(name, entry);
    return entry;
  };
  const producerGuard = (producer: string) =>
    options.iam ? compileStatements(producer, options.iam.policies.producers[producer] ?? [], options.iam.local) : null;
  const producerClients: SQSClient[] = [];
  return {
    depsOf: (name) => build(name).deps,
    sqsOf: (name) => build(name).sqs,
    producerGuard,
    producerSqs(producer) {
      const sqs = sqsClient(options.endpoints.sqs);
      const guard = producerGuard(producer);
      // Not in the call log, which lists the functions' calls against their roles.
      if (guard && options.iam) guardClient(sqs, 'sqs', guard, options.iam.local, { callLog: undefined });
      producerClients.push(sqs);
      return sqs;
    },
    destroy() {
      mirrors.dynamodb.stop();
      mirrors.sqs.stop();
      mirrors.ses?.stop();
      for (const { dynamodb, sqs, ses } of built.values()) {
        dynamodb.destroy();
        sqs.destroy();
        ses.destroy();
      }
      for (const sqs of producerClients) sqs.destroy();
    },
  };
}

type Stack = { add(...args: any[]): any; addRelativeTo(...args: any[]): any; remove(toRemove: any): boolean };

/** Repeats on other clients' stacks every add, addRelativeTo and remove made on `source`'s stack from now on. */
function mirror(source: { middlewareStack: unknown }) {
  const stack = source.middlewareStack as Stack;
  const original = { add: stack.add, addRelativeTo: stack.addRelativeTo, remove: stack.remove };
  const added: { method: 'add' | 'addRelativeTo'; args: unknown[] }[] = [];
  const targets: Stack[] = [];
  const nameOf = (args: unknown[]) => (args[1] as { name?: string } | undefined)?.name;
  stack.add = (...args: unknown[]) => {
    original.add.apply(stack, args);
    added.push({ method: 'add', args });
    for (const t of targets) t.add(...args);
  };
  stack.addRelativeTo = (...args: unknown[]) => {
    original.addRelativeTo.apply(stack, args);
    added.push({ method: 'addRelativeTo', args });
    for (const t of targets) t.addRelativeTo(...args);
  };
  stack.remove = (toRemove: unknown) => {
    const removed = original.remove.call(stack, toRemove);
    for (let i = added.length - 1; i >= 0; i--)
      if (nameOf(added[i]!.args) === toRemove || added[i]!.args[0] === toRemove) added.splice(i, 1);
    for (const t of targets) t.remove(toRemove);
    return removed;
  };
  return {
    to(client: { middlewareStack: unknown }) {
      const target = client.middlewareStack as Stack;
      for (const { method, args } of added) target[method](...args);
      targets.push(target);
    },
    stop() {
      Object.assign(stack, original);
    },
  };
}

export type IamOption = false | { policies?: RolePolicies };

/**
 * The runtime's hook: per-function deps with IAM enforced from the synthesized stack's roles (cached under
 * node_modules/.cache; `iam.policies` replaces them, a test narrowing a role), or, with `iam: false`, unguarded,
 * said loudly.
 */
export async function localFunctionDeps(
  iam: IamOption | undefined,
  options: Omit<Parameters<typeof functionDeps>[0], 'iam'> & { region: string },
): Promise<FunctionDeps> {
  const { config, logger } = options.base;
  if (iam === false) {
    logger?.warn('IAM enforcement is OFF: functions may call actions their roles do not allow, which fail in AWS.');
    return functionDeps({ ...options, iam: null });
  }
  const policies = iam?.policies ?? (await (await import('./iam-policies.js')).synthesizedPolicies());
  const local = {
    region: options.region,
    tableName: config!.tableName,
    queueUrl: config!.webhookQueueUrl,
    dlqUrl: config!.webhookDlqUrl,
    fanOutQueueUrl: config!.fanOutQueueUrl,
    stopQueueUrl: config!.stopCommandQueueUrl,
    mailFrom: config!.mailFrom,
    configurationSet: config!.mailConfigurationSet,
  };
  // IAM_CALL_LOG as the runtime starts: every distinct (function, action, resource) its guards see goes there.
  return functionDeps({ ...options, iam: { policies, local, callLog: process.env.IAM_CALL_LOG || undefined } });
}
