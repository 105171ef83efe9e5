import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { chosenRuntimeFile, readRuntimeFile } from '#local/runtime-file';
import { adminApi, withAdminKey, withSigV4, type AdminApi } from './admin-api.js';

/**
 * Which deployment the CLI talks to: a deployed stage (its CloudFormation
 * outputs, default AWS credentials) or the local runtime `npm start` records.
 * Every command goes through its admin API.
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
  /** The admin API: SigV4-signed for a stage, the admin key locally. */
  api: AdminApi;
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
  const { ApiUrl: apiUrl } = outputs;
  if (!apiUrl) throw new TargetError(`stack ${name} has no ApiUrl output`);
  return {
    label: `stage ${stage} (${name})`,
    // The same default credential chain the SDK clients use, resolved again when a session's credentials expire.
    api: adminApi(apiUrl, withSigV4(signingRegion, cfn.config.credentials)),
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
  // A runtime file without a key (an older runtime's) says what to do.
  if (!info.adminKey) throw new TargetError(`${file} has no admin key: restart \`npm start\``);
  return { label: `local runtime ${info.url} (${file})`, api: adminApi(info.url, withAdminKey(info.adminKey)) };
}
