import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDb } from '#data/store';
import { type Store, createStore } from '#data/repositories';
import { localEndpoint } from '#local/endpoints';
import { readRuntimeFile, RUNTIME_FILE, RUNTIME_FILE_ENV } from '#local/runtime-file';
import { adminApi, withAdminKey, withSigV4, type AdminApi } from './admin-api.js';

/**
 * Which deployment the CLI talks to: a deployed stage (its CloudFormation
 * outputs, default AWS credentials) or the local runtime `npm start` records.
 * Admin operations go through its admin API; only the venue-data loads write
 * its table directly.
 */

const stackName = (stage: string) => `CustomerApi-${stage}`;
const NOT_RUNNING = 'the local runtime is not running: start it with `npm start`, or pass --stage';

export type TargetChoice = { stage?: string | undefined; region?: string | undefined; runtimeFile?: string | undefined };

export type Target = {
  /** For --debug: "stage prod (CustomerApi-prod)", "local runtime (.local/runtime.json)". */
  label: string;
  tableName: string;
  /** The admin API: SigV4-signed for a stage, the admin key locally. */
  api: AdminApi;
  /** The table, for the venue-data loads only. */
  store: Store;
  close(): void;
};

/** The target cannot be reached as asked (no runtime, no stack); exit code 2. */
export class TargetError extends Error {}

export function openTarget(choice: TargetChoice, env: NodeJS.ProcessEnv): Promise<Target> {
  return choice.stage ? openStage(choice.stage, choice.region) : Promise.resolve(openLocal(choice.runtimeFile ?? env[RUNTIME_FILE_ENV]));
}

async function openStage(stage: string, region: string | undefined): Promise<Target> {
  const clientConfig = region ? { region } : {};
  const name = stackName(stage);
  const cfn = new CloudFormationClient(clientConfig);
  let outputs: Record<string, string>;
  let signingRegion: string;
  try {
    const { Stacks } = await cfn.send(new DescribeStacksCommand({ StackName: name }));
    outputs = Object.fromEntries((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']));
    signingRegion = await cfn.config.region();
  } catch (err) {
    if ((err as Error).name === 'ValidationError')
      throw new TargetError(`stack ${name} not found: is stage ${stage} deployed in this region?`);
    throw err;
  } finally {
    cfn.destroy();
  }
  const { TableName: tableName, ApiUrl: apiUrl } = outputs;
  if (!tableName) throw new TargetError(`stack ${name} has no TableName output`);
  if (!apiUrl) throw new TargetError(`stack ${name} has no ApiUrl output`);
  const dynamodb = new DynamoDBClient(clientConfig);
  return {
    label: `stage ${stage} (${name})`,
    tableName,
    // The same default credential chain the SDK clients use, resolved again when a session's credentials expire.
    api: adminApi(apiUrl, withSigV4(signingRegion, cfn.config.credentials)),
    store: createStore(createDb(tableName, dynamodb)),
    close: () => dynamodb.destroy(),
  };
}

function openLocal(file: string | undefined): Target {
  let info;
  try {
    info = readRuntimeFile(file ?? RUNTIME_FILE);
  } catch (err) {
    throw new TargetError((err as Error).message);
  }
  if (!info) throw new TargetError(NOT_RUNNING);
  const dynamodb = new DynamoDBClient(localEndpoint(info.dynamoEndpoint, info.region, info.externalDynamo));
  return {
    label: `local runtime (${file ?? RUNTIME_FILE})`,
    tableName: info.tableName,
    // The loads need no key; an admin operation without one says what to do.
    api: info.adminKey
      ? adminApi(info.url, withAdminKey(info.adminKey))
      : { call: () => Promise.reject(new TargetError(`${file ?? RUNTIME_FILE} has no admin key: restart \`npm start\``)) },
    store: createStore(createDb(info.tableName, dynamodb)),
    close: () => dynamodb.destroy(),
  };
}
