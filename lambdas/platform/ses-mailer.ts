import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { configFromEnv } from './config.js';
import type { Mailer } from './mailer.js';

/**
 * SES v2 in AWS; locally the same client reaches a local SES v2. Its own
 * module, so only the functions that mail owners (admin, sweeper) carry and
 * construct the SES client. Every mail names the stage's configuration set,
 * whose event destination reports its bounces and complaints (lambdas/mail-events/).
 */
export function sesMailer(from: string, client = new SESv2Client({}), configurationSet = configFromEnv().mailConfigurationSet): Mailer {
  return {
    async send({ to, subject, text }) {
      await client.send(
        new SendEmailCommand({
          FromEmailAddress: from,
          Destination: { ToAddresses: [to] },
          Content: { Simple: { Subject: { Data: subject }, Body: { Text: { Data: text } } } },
          ...(configurationSet ? { ConfigurationSetName: configurationSet } : {}),
        }),
      );
    },
  };
}
