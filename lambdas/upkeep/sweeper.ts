import { awsClients, buildMessagingDeps } from '#lambdas/webhooks/deps';
import { configFromEnv } from '#platform/config';
import { sesMailer } from '#platform/ses-mailer';
import { signedSendingQueue } from '#platform/signed-queue';
import { createSweeper } from './upkeep.js';

const clients = awsClients();
const deps = buildMessagingDeps(clients, { mailer: sesMailer(configFromEnv().mailFrom) });
export const handler = createSweeper({ ...deps, stopCommands: signedSendingQueue(clients.dynamodb, deps.config.stopCommandQueueUrl) });
