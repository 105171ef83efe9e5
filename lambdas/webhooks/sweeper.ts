import { configFromEnv } from '#platform/config';
import { defaultMessagingDeps } from './deps.js';
import { sesMailer } from '#platform/ses-mailer';
import { createSweeper } from './handlers.js';

export const handler = createSweeper(defaultMessagingDeps({ mailer: sesMailer(configFromEnv().mailFrom) }));
