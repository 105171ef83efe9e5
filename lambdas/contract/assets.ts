import { fileURLToPath } from 'node:url';

/** The repository folder of the sports logos: served from here locally, uploaded from here to S3 by the stack. */
export const SPORTS_LOGO_DIR = fileURLToPath(new URL('../../assets/sports-logo/', import.meta.url));
/** Key prefix of the logos in the asset bucket (the stack's deployment and the S3 store agree on it here). */
export const SPORTS_LOGO_PREFIX = 'sports-logo/';
