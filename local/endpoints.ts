import type { Endpoint } from '#platform/deps';
import type { LocalCredentials } from './engine-door.js';

/**
 * A client endpoint on this machine: an engine the runtime started takes its credential (engine-door.ts); an
 * external one (DynamoDB Local, a real SQS), given null, keeps the SDK's credential chain.
 */
export function localEndpoint(endpoint: string, region: string, credentials: LocalCredentials | null): Endpoint {
  return { endpoint, region, ...(credentials ? { credentials } : {}) };
}
