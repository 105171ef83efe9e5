import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '#local/dynamodb-local';
import { toolPath, TOOLS } from './tools.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** What the DynamoDB Local project's workers add to their environment (engine-env.ts). */
    engineEnv: Record<string, string>;
  }
}

/**
 * The DynamoDB Local project's global setup: AWS's own engine (the jar, local/dynamodb-local.ts) for the run. Its
 * door and the credential it admits go to the project's workers; every test runtime makes its own table there.
 */
export default async function dynamodbLocal(project: TestProject): Promise<() => Promise<void>> {
  const engine = await startDynamoDbLocal(toolPath(TOOLS.java));
  project.provide('engineEnv', {
    TEST_DYNAMODB_ENDPOINT: engine.endpoint,
    AWS_ACCESS_KEY_ID: engine.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: engine.credentials.secretAccessKey,
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
  });
  return () => engine.stop();
}
