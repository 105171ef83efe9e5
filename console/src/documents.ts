import type { CredentialType } from '#contract/credentials';
import type { DeliveryStatus, TimelineEntry } from '#lambdas/webhooks/delivery-policy';
import type { Scope } from '#contract/scopes';

/**
 * The admin API's documents, as the console reads them (lambdas/admin and the webhook room's admin operations
 * write them). Declared here once: the console may import only `#contract`, and the server's own types drag in
 * its records and ports. Only the fields a page reads are named.
 */

/** A page of a list: its items under their own name, and the cursor of the next page. */
export type Paged<K extends string, T> = { [key in K]: T[] } & { nextCursor?: string };

export type App = {
  clientId: string;
  groupId: string;
  name: string;
  scopes: Scope[];
  /** null: the whole group. */
  allowedLocationIds: string[] | null;
  rateLimitPerMinute: number;
  ownerEmail: string | null;
  /** Present with an owner's address: SES reported it bouncing or complaining. */
  ownerEmailSuppressed?: boolean;
  status: 'active' | 'revoked';
  credentialType: CredentialType;
  previousSecretExpiresAt?: string;
  expiresAt: string | null;
  destinationCount: number;
  destinationLimit: number;
};

/** A row of `GET /apps`: the application and its count this minute. */
export type AppRow = App & { requestsThisMinute: number };

export type LegacyCredential = Pick<App, 'clientId' | 'groupId' | 'name' | 'status'> & {
  tokenPrefix: string;
  lastUsedAt: string | null;
};

/** What creation hands back, the one time the secret is shown. */
export type CreatedApp = { app: App; clientSecret: string };
export type RotatedApp = CreatedApp & { oldTokensEndAt: string | null };

export type Health = 'NOT_TESTED' | 'HEALTHY' | 'FAILING' | 'DISABLED';

export type Destination = {
  destinationId: string;
  clientId: string;
  groupId: string;
  name: string;
  hostname: string;
  /** null: every location the application covers. */
  locationIds: string[] | null;
  enabled: boolean;
  health: Health;
  /** Its new deliveries are held until it answers again. */
  paused: boolean;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
};

/** A destination's document and what an action on it answers; a created or rotated one carries its secret once. */
export type DestinationDocument = { destination: Destination; signingSecret?: string };
export type CreatedDestination = { destination: Destination; signingSecret: string };

/** A delivery as a destination's lists show it: status, safe error code, times; never a body. */
export type DeliverySummary = {
  deliveryId: string;
  eventId: string;
  eventType: string;
  locationId: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  errorCode: string | null;
  createdAt: string;
  updatedAt: string;
};

export type ShownDestination = { destination: Destination; recentDeliveries: DeliverySummary[] };

/** Deliveries of the last 24 hours by the hour they were created and their status now. */
export type HourlyOutcomes = { hours: { hour: string; counts: Record<string, number> }[]; truncated: boolean };

/** A delivery's story, with its destination's name (null once removed). */
export type DeliveryStory = DeliverySummary & {
  destinationId: string;
  destinationHost: string;
  destinationName: string | null;
  deadLetterReason: string | null;
  redrives: number;
  timeline: TimelineEntry[];
};

export type DeadLetterSummary = {
  deliveryId: string;
  clientId: string | null;
  locationId: string | null;
  reason: string;
  eventType: string | null;
  destinationId: string | null;
  destinationHost: string | null;
  /** null: removed since. */
  destinationName: string | null;
  attempts: number | null;
  lastErrorCode: string | null;
  deadSince: string;
  ageSeconds: number;
};

export type DeadLetters = Paged<'deadLetters', DeadLetterSummary> & { dlqMessages: number | null };

export type DeadLetter = Omit<DeadLetterSummary, 'destinationName'> & {
  lastHttpStatus: number | null;
  backoffSeconds: number[];
  redrives: number;
  createdAt: string;
  timeline: TimelineEntry[];
  payload: unknown;
};

export type Redriven = {
  redriven: string[];
  nextCursor?: string;
  skipped?: { deliveryId: string; reason: string }[];
};

export type AuditEntry = {
  at: string;
  requestId: string;
  actor: string;
  operation: string;
  clientId: string | null;
  destinationId: string | null;
  deliveryId: string | null;
  details: Record<string, string | number | boolean | string[] | null>;
};

export type MenuRow = {
  locationId: string;
  name: string;
  published: boolean;
  revision: string | null;
  updatedAt: string | null;
  sectionCount: number;
  itemCount: number;
  sourceHealth: { pos: string } | null;
  pendingEvents: number;
};

/** A test queued through the destination's own queue and worker. */
export type QueuedTest = { eventId: string; deliveryId: string };

export type Published = { revision: string; newRevision: boolean; deliveries: number };

export type MailSuppression = { address: string; reason: 'bounce' | 'complaint'; at: string };

export type KeyVersion = {
  version: number;
  state: 'next' | 'signing' | 'verifying' | 'revoked';
  createdAt: string;
  retiresAt?: string;
  revokedAt?: string;
};
export type KeyVersions = { versions: KeyVersion[] };
