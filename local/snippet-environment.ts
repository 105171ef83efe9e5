import type { Producer } from '#lambdas/producers/routes';
import { ENV } from '#platform/config';

/** The variable a producer's key is in: POS_SYNC_KEY for pos-sync. */
const producerKeyVariable = (producer: string) => `${producer.toUpperCase().replaceAll('-', '_')}_KEY`;

/**
 * The `export` line `npm start` prints: the environment every runnable snippet of the docs reads (API_URL,
 * CLIENT_ID, CLIENT_SECRET, ADMIN_API_KEY, each producer's key, POS_SYNC_KEY…, and the stop-command queue's URL,
 * STOP_COMMAND_QUEUE_URL). The snippets test sets the same names, from this one list.
 */
export function snippetVariables(
  apiUrl: string,
  clientId: string,
  clientSecret: string,
  adminKey: string,
  producerKeys: Record<Producer, string>,
  stopCommandQueueUrl: string,
): Record<string, string> {
  return {
    API_URL: apiUrl,
    CLIENT_ID: clientId,
    CLIENT_SECRET: clientSecret,
    ADMIN_API_KEY: adminKey,
    ...Object.fromEntries(Object.entries(producerKeys).map(([producer, key]) => [producerKeyVariable(producer), key])),
    // The name a function reads it by (lambdas/platform/config.ts).
    [ENV.stopCommandQueueUrl]: stopCommandQueueUrl,
  };
}

export function snippetEnvironment(...args: Parameters<typeof snippetVariables>): string {
  return `export ${Object.entries(snippetVariables(...args))
    .map(([name, value]) => `${name}=${value}`)
    .join(' ')}`;
}
