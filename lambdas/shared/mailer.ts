import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';

export type Mail = { to: string; subject: string; text: string };
export type Mailer = { send(mail: Mail): Promise<void> };

/** SES v2 in AWS; locally the same client reaches a local SES v2 through AWS_ENDPOINT_URL_SESV2. */
export function sesMailer(from: string, client = new SESv2Client({})): Mailer {
  return {
    async send({ to, subject, text }) {
      await client.send(
        new SendEmailCommand({
          FromEmailAddress: from,
          Destination: { ToAddresses: [to] },
          Content: { Simple: { Subject: { Data: subject }, Body: { Text: { Data: text } } } },
        }),
      );
    },
  };
}
