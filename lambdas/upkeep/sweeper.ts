import { defaultMessagingDeps } from '#lambdas/webhooks/deps';
import { configFromEnv } from '#platform/config';
import { sesMailer } from '#platform/ses-mailer';
import { createSweeper } from './upkeep.js';

export const handler = createSweeper(defaultMessagingDeps({ mailer: sesMailer(configFromEnv().mailFrom) }));
