import { spawn } from 'node:child_process';
import { startDynamoDbLocal } from '#local/dynamodb-local';
import { toolPath, TOOLS } from './tools.js';

/**
 * Runs a command with DynamoDB Local (AWS's own engine) beside it:
 *   tsx test/support/with-dynamodb-local.ts vitest run test/e2e
 * The command sees TEST_DYNAMODB_ENDPOINT (the jar's door, local/dynamodb-local.ts) and the credential it admits;
 * every test runtime then makes its own table there. The jar stops by pid afterwards.
 */
const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: with-dynamodb-local <command> [args…]');
  process.exit(2);
}
const engine = await startDynamoDbLocal(toolPath(TOOLS.java));
console.log(`DynamoDB Local ${engine.endpoint} (pid ${engine.pid})`);
const child = spawn(command, args, {
  stdio: 'inherit',
  env: {
    ...process.env,
    TEST_DYNAMODB_ENDPOINT: engine.endpoint,
    AWS_ACCESS_KEY_ID: engine.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: engine.credentials.secretAccessKey,
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
  },
});
const forward = (signal: NodeJS.Signals) => child.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);
const code = await new Promise<number>((resolve) => child.once('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
await engine.stop();
process.exit(code);
