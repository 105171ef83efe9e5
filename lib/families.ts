import type { DynamoAction, TableIndexName } from './constructs/service-function.js';
import type { Family } from '#contract/routes';

/** What one family's Lambda needs from the infrastructure, and nothing more. */
export type FamilyInfra = {
  /** DynamoDB actions on the table. */
  tableActions: readonly DynamoAction[];
  /** GSIs the family queries; each is granted by its own ARN (never `index/*`). */
  queriedIndexes: readonly TableIndexName[];
  /** ses:SendEmail from MAIL_FROM (owner alerts). */
  sendsMail: boolean;
  memorySize: number;
};

/**
 * Every /v1 family runs auth → rate limit → route: it reads credentials, apps
 * and locations, bumps the rate counter and may queue an owner alert (an
 * UpdateItem; the webhook sweeper sends it), so no /v1 family sends mail.
 */
const V1_FAMILY: FamilyInfra = {
  tableActions: ['GetItem', 'BatchGetItem', 'Query', 'UpdateItem'],
  queriedIndexes: [],
  sendsMail: false,
  memorySize: 1024,
};

/** Typed by Family: a family added to the route table does not compile until it is declared here. */
export const FAMILY_INFRA: Record<Family, FamilyInfra> = {
  // Reads the app, bumps the per-client attempt counter, writes the credential.
  token: { tableActions: ['GetItem', 'PutItem', 'UpdateItem'], queriedIndexes: [], sendsMail: false, memorySize: 512 },
  // Locations are listed by base-table Query (PK = group), so no GSI grant.
  discovery: V1_FAMILY,
  // Menus are read by key and listed by base-table Query (PK = group).
  bevq: V1_FAMILY,
  // shiftq items are read by key (GetItem/BatchGetItem) and reviews paged by base-table Query; no GSI.
  shiftq: V1_FAMILY,
  // Sports data is read by key and viewing data by base-table Query (PK = group); no GSI.
  sportsq: V1_FAMILY,
  // Also puts emergency-stop commands (conditional PutItem on a deterministic key).
  matriq: { ...V1_FAMILY, tableActions: [...V1_FAMILY.tableActions, 'PutItem'] },
  // Campaigns listed by base-table Query (PK = group); devices read by key.
  campaigns: V1_FAMILY,
  orderboard: V1_FAMILY,
  // Public logos from the asset bucket (the stack binds it); no auth, so it never touches the table beyond the shared deps' client.
  assets: { tableActions: ['GetItem'], queriedIndexes: [], sendsMail: false, memorySize: 256 },
};

/**
 * The admin API's function: apps, destinations (deleted with DeleteItem),
 * menu publishing, dead letters (listed through GSI1). It also sends to the
 * webhook queue, consumes the DLQ and e-mails owners; the stack grants those.
 */
export const ADMIN_API_INFRA: FamilyInfra = {
  tableActions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
  queriedIndexes: ['GSI1'],
  sendsMail: true,
  memorySize: 512,
};

/** The family API Gateway's `$default` route reaches: every path and method no route matches (its 404/405). */
export const CATCH_ALL_FAMILY: Family = 'discovery';
