import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDb } from '#data/store';
import { storeOf } from '#data/store';
import { LOCAL_REPOSITORIES, type LocalStore } from '#local/repositories';
import { localEndpoint } from '#local/endpoints';
import { chosenRuntimeFile, readRuntimeFile } from '#local/runtime-file';
import { adminApi, withAdminKey, withSigV4, type AdminApi } from './admin-api.js';

/**
 * Which deployment the CLI talks to: a deployed stage (its CloudFormation
 * outputs, default AWS credentials) or the local runtime `npm start` records.
 * Admin operations go through its admin API; only the venue-data loads write
 * its table directly.
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
  /** The admin API: SigV4-signed for a stage, the admin key locally. */
  api: AdminApi;
  /** The table, for the venue-data loads only. */
  store: LocalStore;
  close(): void;
};

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
    store: storeOf(createDb(tableName, dynamodb), LOCAL_REPOSITORIES),
    close: () => dynamodb.destroy(),
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
  const dynamodb = new DynamoDBClient(localEndpoint(info.dynamoEndpoint, info.region, info.externalDynamo ? null : info.credentials));
  return {
    label: `local runtime ${info.url} (${file})`,
    tableName: info.tableName,
    // The loads need no key; an admin operation without one says what to do.
    api: info.adminKey
      ? adminApi(info.url, withAdminKey(info.adminKey))
      : { call: () => Promise.reject(new TargetError(`${file} has no admin key: restart \`npm start\``)) },
    store: storeOf(createDb(info.tableName, dynamodb), LOCAL_REPOSITORIES),
    close: () => dynamodb.destroy(),
  };
}
