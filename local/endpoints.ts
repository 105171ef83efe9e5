import type { Endpoint } from '#platform/deps';

/** The embedded engines (dynalite, fauxqs, local SES) accept any credentials; these keep the SDK from looking for real ones. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** A client endpoint on this machine; `external` (DynamoDB Local, a real SQS) keeps the SDK's credential chain. */
export function localEndpoint(endpoint: string, region: string, external = false): Endpoint {
  return { endpoint, region, ...(external ? {} : { credentials: LOCAL_CREDENTIALS }) };
}
