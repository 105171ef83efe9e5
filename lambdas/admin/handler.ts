import { configFromEnv } from '#platform/config';
import { defaultMessagingDeps } from '#platform/messaging-deps';
import { sesMailer } from '#platform/ses-mailer';
import { createHandler } from './index.js';

export const handler = createHandler(defaultMessagingDeps({ mailer: sesMailer(configFromEnv().mailFrom) }));
