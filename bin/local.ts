import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import {
  bannerFileOf,
  defaultDataDir,
  removeRuntimeFile,
  runtimeFileOf,
  writeBannerFile,
  writeRuntimeFile,
} from '../local/runtime-file.js';
import { seedDemoMenu } from '../local/demo-menu.js';
import { startLocalRuntime } from '../local/runtime.js';
import { LocalStartError } from '../local/start-checks.js';
import { snippetEnvironment } from '../local/snippet-environment.js';
import { LOCAL_SQS_PATH } from '../local/producer-sqs.js';
import { CONSOLE_ROOT } from '#lib/console-build';
import { REFERENCE_ROOT } from '#lib/reference-build';
import { ENV } from '#platform/config';

/**
 * npm start: the whole service locally.
 *   --in-memory      keep nothing between runs (default: persist under .data/)
 *   --data DIR       data folder (default CUSTOMER_API_DATA_DIR, else .data); one runtime at a time per folder
 *   --no-simulated-gateway   leave the stop-command queue to you: no simulated device platform consumes it
 *   PORT             gateway port (3000)
 *   DYNAMODB_ENDPOINT, SQS_ENDPOINT   use external engines instead of the embedded ones
 *   TABLE_NAME       the table (and queue-name prefix) to use; default customer-api-local
 *   ADMIN_API_KEY    the admin API's bearer key (default: made at the data folder's first start and kept in
 *                    it, printed; --in-memory: a new one each run)
 *   ORIGIN_SECRET    play a stage behind its edge: /v1 and /oauth/token refuse requests without
 *                    `x-origin-verify: $ORIGIN_SECRET` (403), and believe their `x-viewer-address`
 */
const { values } = parseArgs({
  options: {
    'in-memory': { type: 'boolean', default: false },
    data: { type: 'string', default: defaultDataDir(process.env) },
    'simulated-gateway': { type: 'boolean', default: true },
  },
  allowNegative: true,
});

// What stops a start (the folder's runtime already running, the port taken, an external engine not answering)
// is one line on stderr and exit 1; anything else keeps its stack.
const runtime = await startLocalRuntime({
  port: Number(process.env.PORT ?? 3000),
  dataDir: values['in-memory'] ? null : resolve(values.data),
  dynamoEndpoint: process.env.DYNAMODB_ENDPOINT,
  sqsEndpoint: process.env.SQS_ENDPOINT,
  tableName: process.env[ENV.tableName] || undefined,
  logLevel: (process.env.LOG_LEVEL as 'INFO' | undefined) ?? 'INFO',
  holdRequests: true,
  simulatedGateway: values['simulated-gateway'],
}).catch((err: unknown) => {
  if (!(err instanceof LocalStartError)) throw err;
  console.error(`npm start: ${err.message}`);
  process.exit(1);
});
if (runtime.demo) await seedDemoMenu(runtime.deps);
// Its own file (per data folder, or per port in memory): the CLI finds it; a second runtime never overwrites it.
const runtimeFile = runtimeFileOf(values['in-memory'] ? null : resolve(values.data), Number(new URL(runtime.url).port));
writeRuntimeFile(runtimeFile, {
  url: runtime.url,
  pid: process.pid,
  region: process.env.AWS_REGION ?? 'us-east-1',
  tableName: runtime.tableName,
  ...runtime.engines,
  ...runtime.queues,
  webhookAllowLoopback: runtime.deps.config.webhookAllowLoopback,
  webhookListenInbox: runtime.deps.config.webhookListenInbox?.origin,
  ...(runtime.demo ? { demoClientId: runtime.demo.clientId } : {}),
  adminKey: runtime.adminKey,
});
// Only now: whoever gets an answer can also find this runtime through its file.
runtime.open();

const lines = [
  '',
  `Customer API listening on ${runtime.url}`,
  `  DynamoDB ${runtime.engines.dynamoEndpoint}${values['in-memory'] ? ' (in memory)' : ` (data in ${values.data})`}`,
  `  SQS      ${runtime.engines.sqsEndpoint}`,
  `  SES v2   ${runtime.engines.sesEndpoint} (sent mail: ${runtime.engines.sesEndpoint}/store)`,
  `  OpenAPI  ${runtime.url}/v1/openapi.json`,
  `  Runtime  ${runtimeFile} (where npm run admin and npm run listen find this runtime)`,
  `  Banner   ${bannerFileOf(runtimeFile)} (this text, yours only: cat it when request logs have pushed it off screen)`,
  `  Docs     ${runtime.url}${REFERENCE_ROOT} (the API reference)`,
  `  Admin    ${runtime.url}/admin/v1 (Authorization: Bearer ${runtime.adminKey}; kept across restarts, ADMIN_API_KEY overrides it)`,
  `  Console  ${runtime.url}${CONSOLE_ROOT} (sign in with the admin key above)`,
  `  Producer ${runtime.url}/producer/v1 (Authorization: Bearer <key>, each key held to its producer's routes; kept across restarts)`,
  ...Object.entries(runtime.producerKeys).map(([producer, key]) => `    ${producer.padEnd(16)} ${key}`),
  `  Stops    ${runtime.queues.stopCommandQueueUrl} (the stop-command queue; the device-platform key consumes it at ${runtime.url}${LOCAL_SQS_PATH})`,
  runtime.simulatedGateway
    ? '           a simulated device platform consumes it and reports each stop applied (--no-simulated-gateway: you do)'
    : '           nothing consumes it but you (the simulated device platform is off)',
  ...(runtime.deps.config.originSecret
    ? ['', "  ORIGIN_SECRET is set: /v1 and /oauth/token answer only requests with x-origin-verify: $ORIGIN_SECRET (the edge's header)."]
    : []),
  ...(runtime.deps.config.webhookAllowLoopback
    ? ['', '  !!! WEBHOOK_ALLOW_LOOPBACK=1: webhook destinations may point at this machine. Local testing only. !!!']
    : []),
];
if (runtime.demo) {
  const { clientId, clientSecret, groupId } = runtime.demo;
  // Behind a (played) edge every call carries its header; the secret itself is never printed.
  const origin = runtime.deps.config.originSecret ? ' -H "x-origin-verify: $ORIGIN_SECRET"' : '';
  lines.push(
    '',
    'Demo application (every scope, group-wide):',
    `  client_id     ${clientId}`,
    `  client_secret ${clientSecret}`,
    '',
    'For the snippets of README.md and docs/, paste into another terminal:',
    `  ${snippetEnvironment(runtime.url, clientId, clientSecret, runtime.adminKey, runtime.producerKeys, runtime.queues.stopCommandQueueUrl)}`,
    '',
    'Try it:',
    `  TOKEN=$(curl -s${origin} ${runtime.url}/oauth/token -d grant_type=client_credentials -d client_id=${clientId} -d client_secret=${clientSecret} | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')`,
    `  curl -s${origin} ${runtime.url}/v1/${groupId}/locations -H "Authorization: Bearer $TOKEN"`,
    `  npm run listen -- --app ${clientId} --forward-to http://localhost:4000/hook   # its webhooks, to your endpoint`,
  );
}
writeBannerFile(runtimeFile, `${lines.join('\n')}\n`);
console.log(lines.join('\n'), '\n');

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping…');
  removeRuntimeFile(runtimeFile);
  await runtime.stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
