import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One logger per process. Nothing that could carry a credential is ever
 * passed to it: no headers, bodies or query strings, only route, status and ids.
 */
export const logger = new Logger({ serviceName: 'customer-api' });
