import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAN_OUT_QUEUES, WEBHOOK_QUEUES } from '#lambdas/webhooks/queues';
import { STOP_COMMAND_QUEUES } from '#lambdas/matriq/stop-queue';

/**
 * The identity policies of every function's role, read from the synthesized dev stack (docs/decisions/iam-local.md).
 * Resources keep CloudFormation's meaning through placeholders, resolved against the local resources by kind:
 * `{{partition}}`, `{{region}}`, `{{account}}`, `{{table}}` (the table's name), `{{queue}}`, `{{dlq}}` and
 * `{{fanOutQueue}}` (the webhook queues' names, told apart by their names' ends, as WEBHOOK_QUEUES and
 * FAN_OUT_QUEUES declare them; no role names the fan-out DLQ), `{{stopQueue}}` (STOP_COMMAND_QUEUES' queue; no role
 * names its DLQ), `{{mailFrom}}` (the address the function's MAIL_FROM names), `{{configurationSet}}` (the SES configuration set's name), `{{api}}` (the HTTP API's id).
 * What cannot be resolved becomes `{{unresolved:…}}`, which no request's resource ever matches.
 */
export type IamStatement = {
  effect: 'Allow' | 'Deny';
  actions: string[];
  resources: string[];
  /** operator → key → values, as in a policy document. */
  conditions?: Record<string, Record<string, string[]>>;
};
export type RolePolicies = {
  /** What the cache was made from (a hash of the stack's sources); absent for hand-made policies. */
  key?: string;
  /** By function (its customer-api:family tag): the statements of every policy attached to its role. */
  functions: Record<string, IamStatement[]>;
  /** By producer class: the statements of its managed policy (`customer-api-<stage>-producer-<class>`). */
  producers: Record<string, IamStatement[]>;
};

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'customer-api-iam');
const FAMILY_TAG = 'customer-api:family';

type Json = Record<string, any>;

/**
 * The policies, from the cache when the stack's sources have not changed since it was written, else synthesized
 * (about 2-3 s, without bundling) and cached. Processes starting together synthesize once: the first takes a lock
 * folder, the others wait for the file it writes.
 */
export async function synthesizedPolicies(): Promise<RolePolicies> {
  const key = sourcesKey();
  const file = join(CACHE_DIR, `policies-${key.slice(0, 16)}.json`);
  const cached = readCache(file, key);
  if (cached) return cached;
  mkdirSync(CACHE_DIR, { recursive: true });
  const lock = `${file}.lock`;
  for (const deadline = Date.now() + 120_000; ;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const ready = readCache(file, key);
      if (ready) return ready;
      // A lock older than two minutes belongs to a process that died.
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 120_000 || Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    const ready = readCache(file, key);
    if (ready) return ready;
    const policies = { key, ...policiesOf(await synthesizeDevTemplate()) };
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(policies)}\n`);
    renameSync(temporary, file);
    return policies;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function readCache(file: string, key: string): RolePolicies | null {
  if (!existsSync(file)) return null;
  try {
    const policies = JSON.parse(readFileSync(file, 'utf8')) as RolePolicies;
    return policies.key === key ? policies : null;
  } catch {
    return null;
  }
}

/** A hash of everything the template is made from: the stack's code, the code it imports, cdk.json and the CDK's version. */
export function sourcesKey(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      // local never reaches the stack (test/unit/layout.test.ts): its edits keep the cache.
      if (entry.isDirectory()) {
        if (path !== join(ROOT, 'lib', 'local')) walk(path);
      } else if (entry.name.endsWith('.ts')) hash.update(relative(ROOT, path)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  walk(join(ROOT, 'lib'));
  walk(join(ROOT, 'lambdas'));
  hash.update(readFileSync(join(ROOT, 'cdk.json')));
  hash.update(readFileSync(join(ROOT, 'node_modules', 'aws-cdk-lib', 'package.json')));
  return hash.digest('hex');
}

/** The dev stack's template, synthesized as the infrastructure tests do it: cdk.json's flags, no bundling. */
export async function synthesizeDevTemplate(): Promise<Json> {
  const [{ App }, { CustomerApiStack }, { stageConfig }] = await Promise.all([
    import('aws-cdk-lib'),
    import('../lib/stack.js'),
    import('../lib/stages.js'),
  ]);
  const context = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')).context;
  const outdir = mkdtempSync(join(tmpdir(), 'customer-api-iam-'));
  try {
    const app = new App({ outdir, context: { ...context, 'aws:cdk:bundling-stacks': [] } });
    // Any verified-looking sender: the ses:FromAddress condition is kept as "the function's MAIL_FROM".
    const stack = new CustomerApiStack(app, 'CustomerApi-dev', {
      config: stageConfig('dev', { mailFrom: 'Customer API <alerts@mail.example.com>' }),
    });
    return app.synth().getStackArtifact(stack.artifactId).template as Json;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** Every function's statements (by its family tag) and every producer's, their tokens turned into placeholders. */
export function policiesOf(template: Json): Omit<RolePolicies, 'key'> {
  const resources = (template.Resources ?? {}) as Record<string, Json>;
  const functions: Record<string, IamStatement[]> = {};
  for (const fn of Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function')) {
    const family = (fn.Properties.Tags ?? []).find((t: Json) => t.Key === FAMILY_TAG)?.Value as string | undefined;
    const roleId = fn.Properties.Role?.['Fn::GetAtt']?.[0] as string | undefined;
    if (!family || !roleId) continue;
    const mailFrom = addressOf(String(fn.Properties.Environment?.Variables?.MAIL_FROM ?? ''));
    const documents = [
      ...Object.values(resources)
        .filter((r) => r.Type === 'AWS::IAM::Policy' && (r.Properties.Roles ?? []).some((ref: Json) => ref.Ref === roleId))
        .map((r) => r.Properties.PolicyDocument),
      ...(resources[roleId]?.Properties?.Policies ?? []).map((p: Json) => p.PolicyDocument),
    ];
    functions[family] = documents.flatMap((doc: Json) => statementsOf(doc, resources, mailFrom));
  }
  const producers: Record<string, IamStatement[]> = {};
  for (const policy of Object.values(resources).filter((r) => r.Type === 'AWS::IAM::ManagedPolicy')) {
    const producer = PRODUCER_POLICY_NAME.exec(String(policy.Properties.ManagedPolicyName ?? ''))?.[1];
    if (producer) producers[producer] = statementsOf(policy.Properties.PolicyDocument, resources, '');
  }
  return { functions, producers };
}

/** A producer class's managed policy, by name (lib/constructs/producer-policies.ts). */
const PRODUCER_POLICY_NAME = /^customer-api-[a-z0-9-]+?-producer-([a-z-]+)$/;

/** A policy document's statements; a condition value equal to the function's sender becomes `{{mailFrom}}`. */
function statementsOf(doc: Json, resources: Record<string, Json>, mailFrom: string): IamStatement[] {
  const resolve = (value: unknown): string => resolveToken(value, resources);
  return list(doc.Statement).map((s: Json): IamStatement => {
    const conditions = s.Condition
      ? Object.fromEntries(
          Object.entries(s.Condition as Json).map(([op, keys]) => [
            op,
            Object.fromEntries(
              Object.entries(keys as Json).map(([k, v]) => [
                k,
                list(v).map((x) => (mailFrom && resolve(x) === mailFrom ? '{{mailFrom}}' : resolve(x))),
              ]),
            ),
          ]),
        )
      : undefined;
    return {
      effect: s.Effect === 'Deny' ? 'Deny' : 'Allow',
      actions: list(s.Action).map(String),
      resources: list(s.Resource).map(resolve),
      ...(conditions ? { conditions } : {}),
    };
  });
}

const PSEUDO: Record<string, string> = {
  'AWS::Partition': '{{partition}}',
  'AWS::Region': '{{region}}',
  'AWS::AccountId': '{{account}}',
  'AWS::URLSuffix': 'amazonaws.com',
};

/** Each queue's placeholder by the end of its name (with no prefix); any other queue stays unresolved. */
const QUEUE_PLACEHOLDERS = [
  [STOP_COMMAND_QUEUES.queueName(''), '{{stopQueue}}'],
  [FAN_OUT_QUEUES.queueName(''), '{{fanOutQueue}}'],
  [WEBHOOK_QUEUES.dlqName(''), '{{dlq}}'],
  [WEBHOOK_QUEUES.queueName(''), '{{queue}}'],
] as const;

/** A CloudFormation value (string, Ref, Fn::GetAtt …Arn, Fn::Join) as a string with placeholders. */
function resolveToken(value: unknown, resources: Record<string, Json>): string {
  if (typeof value === 'string') return value;
  const v = value as Json;
  if (v.Ref !== undefined) {
    if (PSEUDO[v.Ref]) return PSEUDO[v.Ref]!;
    const type = resources[v.Ref]?.Type;
    if (type === 'AWS::DynamoDB::Table') return '{{table}}';
    if (type === 'AWS::SES::ConfigurationSet') return '{{configurationSet}}';
    if (type === 'AWS::ApiGatewayV2::Api') return '{{api}}';
    return `{{unresolved:Ref:${v.Ref}}}`;
  }
  if (v['Fn::GetAtt']) {
    const [id, attribute] = v['Fn::GetAtt'] as [string, string];
    const type = resources[id]?.Type;
    if (attribute === 'Arn' && type === 'AWS::DynamoDB::Table') return 'arn:{{partition}}:dynamodb:{{region}}:{{account}}:table/{{table}}';
    const queue =
      type === 'AWS::SQS::Queue' && QUEUE_PLACEHOLDERS.find(([end]) => String(resources[id]!.Properties?.QueueName).endsWith(end));
    if (attribute === 'Arn' && queue) return `arn:{{partition}}:sqs:{{region}}:{{account}}:${queue[1]}`;
    return `{{unresolved:GetAtt:${id}.${attribute}}}`;
  }
  if (v['Fn::Join']) {
    const [separator, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map((p) => resolveToken(p, resources)).join(separator);
  }
  return `{{unresolved:${Object.keys(v)[0] ?? '?'}}}`;
}

const list = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** `Name <a@b.c>` or `a@b.c` → `a@b.c`. */
export function addressOf(mailFrom: string): string {
  return (/<([^>]+)>\s*$/.exec(mailFrom)?.[1] ?? mailFrom).trim();
}
