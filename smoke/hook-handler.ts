import { CodeDeployClient, PutLifecycleEventHookExecutionStatusCommand } from '@aws-sdk/client-codedeploy';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { logger } from '#platform/observability';
import { createSmokeHook, type HookEvent, type HookStatus } from './hook.js';

/**
 * The Lambda entry of the canary's AfterAllowTraffic hook (smoke/hook.ts): env SMOKE_BASE_URL (the stage's
 * public URL) and SMOKE_SECRET_ID (the smoke application's secret). It only builds the two AWS clients, on the
 * first invocation: importing it reads no environment and opens no connection.
 */
let clients: { codeDeploy: CodeDeployClient; secrets: SecretsManagerClient } | undefined;
const aws = () => (clients ??= { codeDeploy: new CodeDeployClient({}), secrets: new SecretsManagerClient({}) });
let coldStart = true;

export const handler = async (
  event: HookEvent,
  context?: { awsRequestId: string; getRemainingTimeInMillis(): number },
): Promise<HookStatus> => {
  logger.setInvocation(context ? { function_request_id: context.awsRequestId, cold_start: coldStart } : undefined);
  coldStart = false;
  const hook = createSmokeHook({
    baseUrl: process.env.SMOKE_BASE_URL,
    async credentials() {
      const secretId = process.env.SMOKE_SECRET_ID;
      if (!secretId) throw new Error('SMOKE_SECRET_ID is not set');
      const secret = await aws().secrets.send(new GetSecretValueCommand({ SecretId: secretId }));
      if (typeof secret.SecretString !== 'string') throw new Error(`secret ${secretId} has no SecretString`);
      return secret.SecretString;
    },
    async report(status, { DeploymentId, LifecycleEventHookExecutionId }) {
      await aws().codeDeploy.send(
        new PutLifecycleEventHookExecutionStatusCommand({
          deploymentId: DeploymentId,
          lifecycleEventHookExecutionId: LifecycleEventHookExecutionId,
          status,
        }),
      );
    },
    print: (line, level) => logger[level](line, { deploymentId: event?.DeploymentId }),
  });
  try {
    return await hook(event, { timeLeftMs: context?.getRemainingTimeInMillis() });
  } finally {
    logger.setInvocation(undefined);
  }
};
