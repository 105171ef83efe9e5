import { appendFileSync } from 'node:fs';
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { SQSServiceException } from '@aws-sdk/client-sqs';
import { SESv2ServiceException } from '@aws-sdk/client-sesv2';
import { addressOf, type IamStatement, type RolePolicies } from './iam-policies.js';

/**
 * IAM enforced locally (docs/decisions/iam-local.md): an SDK v3 middleware on a function's DynamoDB, SQS and SES
 * v2 clients maps each command to the IAM action(s) and resource(s) AWS authorizes it as, and refuses what the
 * statements of that function's synthesized role do not allow, with the error AWS returns.
 */

export type Service = 'dynamodb' | 'sqs' | 'ses';

/** The local resources the placeholders of the synthesized policies stand for. */
/** `configurationSet`: the SES configuration set the mailing functions send with (absent: none). */
export type LocalResources = {
  region: string;
  tableName: string;
  queueUrl: string;
  dlqUrl: string;
  fanOutQueueUrl: string;
  /** The stop-command queue (absent: none; no request names it then). */
  stopQueueUrl?: string;
  mailFrom: string;
  configurationSet?: string;
};

/** The account every local ARN carries (policies' `{{account}}` and requests' ARNs alike). */
export const LOCAL_ACCOUNT = '000000000000';
export const PARTITION = 'aws';
/** The local gateway's API id (its events' requestContext.apiId). */
export const LOCAL_API_ID = 'local';

/** One authorization request, as IAM evaluates it. */
export type IamRequest = { action: string; resource: string; context: Record<string, string> };

type Compiled = { effect: 'Allow' | 'Deny'; actions: RegExp[]; resources: RegExp[]; conditions?: IamStatement['conditions'] };

export type Guard = {
  fn: string;
  /** Whether the role allows the request (an explicit Deny wins; no Allow is an implicit deny). */
  allows(request: IamRequest): 'allowed' | 'implicit' | 'explicit';
};

export type GuardOptions = {
  /** Append every distinct (function, action, resource) seen to this file (JSON lines); default IAM_CALL_LOG. */
  callLog?: string | undefined;
};

/** The function's statements with the placeholders replaced by the local resources' names. */
export function compileGuard(fn: string, policies: RolePolicies, local: LocalResources): Guard {
  const statements = policies.functions[fn];
  if (!statements) throw new Error(`IAM guard: no role for function "${fn}" in the synthesized stack (its ${'customer-api:family'} tag)`);
  return compileStatements(fn, statements, local);
}

/** A guard over any principal's statements (a function's role, a producer's policy). */
export function compileStatements(fn: string, statements: readonly IamStatement[], local: LocalResources): Guard {
  const values = placeholders(local);
  const fill = (s: string) =>
    s.replace(
      /\{\{(partition|region|account|table|queue|dlq|fanOutQueue|stopQueue|mailFrom|configurationSet|api)\}\}/g,
      (_, k: keyof typeof values) => values[k],
    );
  const compiled: Compiled[] = statements.map((s) => ({
    effect: s.effect,
    actions: s.actions.map((a) => wildcard(a, true)),
    resources: s.resources.map((r) => wildcard(fill(r), false)),
    ...(s.conditions
      ? {
          conditions: Object.fromEntries(
            Object.entries(s.conditions).map(([op, keys]) => [
              op,
              Object.fromEntries(Object.entries(keys).map(([k, v]) => [k, v.map(fill)])),
            ]),
          ),
        }
      : {}),
  }));
  const applies = (s: Compiled, r: IamRequest) =>
    s.actions.some((a) => a.test(r.action)) &&
    s.resources.some((p) => p.test(r.resource)) &&
    conditionsHold(s.conditions, r.context, s.effect);
  const evaluate = (request: IamRequest) => {
    if (compiled.some((s) => s.effect === 'Deny' && applies(s, request))) return 'explicit';
    return compiled.some((s) => s.effect === 'Allow' && applies(s, request)) ? 'allowed' : 'implicit';
  };
  // A role's answer depends on the request alone, and a function names few distinct ones: each is evaluated once.
  const verdicts = new Map<string, ReturnType<Guard['allows']>>();
  return {
    fn,
    allows(request) {
      const id = `${request.action}\0${request.resource}\0${JSON.stringify(request.context)}`;
      let verdict = verdicts.get(id);
      if (verdict === undefined) verdicts.set(id, (verdict = evaluate(request)));
      return verdict;
    },
  };
}

function placeholders(local: LocalResources) {
  return {
    partition: PARTITION,
    region: local.region,
    account: LOCAL_ACCOUNT,
    table: local.tableName,
    queue: queueNameOf(local.queueUrl),
    dlq: queueNameOf(local.dlqUrl),
    fanOutQueue: queueNameOf(local.fanOutQueueUrl),
    // No queue is named '\0': with no stop-command queue, a policy's `{{stopQueue}}` matches no request.
    stopQueue: local.stopQueueUrl ? queueNameOf(local.stopQueueUrl) : '\0',
    mailFrom: addressOf(local.mailFrom),
    configurationSet: local.configurationSet ?? '',
    api: LOCAL_API_ID,
  };
}

/** StringEquals and StringLike (what the stack writes); any other operator makes an Allow not apply and a Deny apply. */
function conditionsHold(conditions: IamStatement['conditions'], context: Record<string, string>, effect: 'Allow' | 'Deny'): boolean {
  if (!conditions) return true;
  return Object.entries(conditions).every(([op, keys]) =>
    Object.entries(keys).every(([key, values]) => {
      const actual = context[key];
      if (op === 'StringEquals') return actual !== undefined && values.includes(actual);
      if (op === 'StringLike') return actual !== undefined && values.some((v) => wildcard(v, false).test(actual));
      return effect === 'Deny';
    }),
  );
}

/** IAM's `*` and `?` wildcards; actions compare without case, resources with it. */
function wildcard(pattern: string, ignoreCase: boolean): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, ignoreCase ? 'i' : '');
}

const queueNameOf = (url: string) => url.replace(/\/+$/, '').split('/').pop() ?? url;

// ── Commands → IAM requests ──────────────────────────────────────────────────────────────────────────────────

type Input = Record<string, any>;

/** The requests AWS authorizes one command as (a batch or transaction: one per table and action). */
export function requestsOf(service: Service, command: string, input: Input, local: Pick<LocalResources, 'region'>): IamRequest[] {
  const arn = (svc: string, resource: string) => `arn:${PARTITION}:${svc}:${local.region}:${LOCAL_ACCOUNT}:${resource}`;
  const op = command.replace(/Command$/, '');
  if (service === 'dynamodb') {
    const table = (name: string) => (String(name).startsWith('arn:') ? String(name) : arn('dynamodb', `table/${name}`));
    const one = (action: string, tableName: string | undefined, indexName?: string): IamRequest => ({
      action: `dynamodb:${action}`,
      resource: tableName === undefined ? '*' : indexName ? `${table(tableName)}/index/${indexName}` : table(tableName),
      context: {},
    });
    if (op === 'BatchGetItem' || op === 'BatchWriteItem') return Object.keys(input.RequestItems ?? {}).map((name) => one(op, name));
    if (op === 'TransactWriteItems') {
      const kinds: Record<string, string> = {
        ConditionCheck: 'ConditionCheckItem',
        Put: 'PutItem',
        Update: 'UpdateItem',
        Delete: 'DeleteItem',
      };
      return (input.TransactItems ?? []).flatMap((item: Input) =>
        Object.entries(item).map(([kind, body]) => one(kinds[kind] ?? kind, (body as Input).TableName)),
      );
    }
    if (op === 'TransactGetItems') return (input.TransactItems ?? []).map((item: Input) => one('GetItem', item.Get?.TableName));
    return [one(op, input.TableName, input.IndexName)];
  }
  if (service === 'sqs') {
    // SQS authorizes a batch as its single action (SendMessageBatch as sqs:SendMessage …).
    const action = `sqs:${op.replace(/Batch$/, '')}`;
    const name = input.QueueUrl ? queueNameOf(String(input.QueueUrl)) : input.QueueName;
    return [{ action, resource: name ? arn('sqs', name) : '*', context: {} }];
  }
  // SES v2: SendEmail is authorized against the sender's identity, with ses:FromAddress the sender's address, and
  // against the configuration set it names.
  if (op === 'SendEmail') {
    const from = addressOf(String(input.FromEmailAddress ?? ''));
    const context = { 'ses:FromAddress': from };
    const set = input.ConfigurationSetName
      ? [{ action: 'ses:SendEmail', resource: arn('ses', `configuration-set/${String(input.ConfigurationSetName)}`), context }]
      : [];
    return [{ action: 'ses:SendEmail', resource: arn('ses', `identity/${from}`), context }, ...set];
  }
  return [{ action: `ses:${op}`, resource: '*', context: {} }];
}

// ── The error AWS answers with ───────────────────────────────────────────────────────────────────────────────

/** An implicit or explicit deny, as the service's SDK client would deserialize it. */
function accessDenied(service: Service, fn: string, request: IamRequest, kind: 'implicit' | 'explicit'): Error {
  const user = `arn:${PARTITION}:sts::${LOCAL_ACCOUNT}:assumed-role/customer-api-local-${fn}-role/${fn}`;
  const why =
    kind === 'explicit'
      ? 'with an explicit deny in an identity-based policy'
      : `because no identity-based policy allows the ${request.action} action`;
  const message = `User: ${user} is not authorized to perform: ${request.action} on resource: ${request.resource} ${why}`;
  const $metadata = { httpStatusCode: 400, requestId: crypto.randomUUID(), attempts: 1, totalRetryDelay: 0 };
  if (service === 'dynamodb') return new DynamoDBServiceException({ name: 'AccessDeniedException', $fault: 'client', $metadata, message });
  if (service === 'sqs')
    return new SQSServiceException({ name: 'AccessDenied', $fault: 'client', $metadata: { ...$metadata, httpStatusCode: 403 }, message });
  return new SESv2ServiceException({
    name: 'AccessDeniedException',
    $fault: 'client',
    $metadata: { ...$metadata, httpStatusCode: 403 },
    message,
  });
}

// ── The middleware ───────────────────────────────────────────────────────────────────────────────────────────

type AnyClient = { middlewareStack: { add(middleware: any, options: any): void } };

const logged = new Set<string>();

/** Adds the guard to `client` (initialize step: before serialization, signing and retries) and returns it. */
export function guardClient<C extends AnyClient>(
  client: C,
  service: Service,
  guard: Guard,
  local: LocalResources,
  options: GuardOptions = {},
): C {
  const callLog = 'callLog' in options ? options.callLog : process.env.IAM_CALL_LOG || undefined;
  const templateForm = templateFormOf(local);
  client.middlewareStack.add(
    (next: (args: any) => Promise<any>, context: { commandName?: string }) => async (args: { input: Input }) => {
      for (const request of requestsOf(service, String(context.commandName ?? ''), args.input, local)) {
        const verdict = guard.allows(request);
        if (callLog)
          record(callLog, {
            function: guard.fn,
            action: request.action,
            resource: templateForm(request.resource),
            allowed: verdict === 'allowed',
          });
        if (verdict !== 'allowed') throw accessDenied(service, guard.fn, request, verdict);
      }
      return next(args);
    },
    { step: 'initialize', name: 'localIamGuard', priority: 'low', override: true },
  );
  return client;
}

/** A local ARN with the local names put back as the policies' placeholders (what the call log records). */
function templateFormOf(local: LocalResources): (resource: string) => string {
  const values = placeholders(local);
  return (resource) => {
    const m = /^arn:([^:]+):([^:]+):([^:]*):([^:]*):(.*)$/.exec(resource);
    if (!m) return resource;
    let rest = m[5]!;
    if (m[2] === 'dynamodb')
      rest = rest.replace(/^table\/([^/]+)/, (whole, name: string) => (name === values.table ? 'table/{{table}}' : whole));
    if (m[2] === 'sqs') {
      const queue = (['queue', 'dlq', 'fanOutQueue', 'stopQueue'] as const).find((k) => values[k] === rest);
      if (queue) rest = `{{${queue}}}`;
    }
    if (m[2] === 'ses')
      rest = rest.replace(/^identity\/(.+)$/, (whole, id: string) => (id === values.mailFrom ? 'identity/{{mailFrom}}' : whole));
    if (m[2] === 'ses')
      rest = rest.replace(/^configuration-set\/(.+)$/, (whole, name: string) =>
        name === values.configurationSet ? 'configuration-set/{{configurationSet}}' : whole,
      );
    const region = m[3] === values.region ? '{{region}}' : m[3];
    const account = m[4] === LOCAL_ACCOUNT ? '{{account}}' : m[4];
    return `arn:{{partition}}:${m[2]}:${region}:${account}:${rest}`;
  };
}

function record(file: string, call: { function: string; action: string; resource: string; allowed: boolean }): void {
  const line = JSON.stringify(call);
  if (logged.has(`${file}\0${line}`)) return;
  logged.add(`${file}\0${line}`);
  appendFileSync(file, `${line}\n`);
}
