import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { appKeys, appsRepo, credentialKeys, credentialsRepo } from '#data/apps';
import { locationKeys } from '#data/locations';
import { readItems } from '#data/store';
import { APP_RATE_CEILING_PER_MINUTE, rateCountersRepo, rateLeases, rateWindow } from '#data/rate-counters';
import { GROUP_PAGE_LIMIT } from '#contract/schemas/requests';
import { localEndpoint } from '../local/endpoints.js';
import { startEngines } from '../local/engines.js';
import { BENCH_SCOPES } from './processes.js';
import { ensureTable } from '../local/provision.js';
import { DEMO_GROUP_ID, DEMO_VENUES } from '../local/seed.js';

/**
 * The fair throughput baseline: a bare node:http server that answers each
 * request with one GetItem (document client) of a demo location, against
 * the same embedded engines in the same process as `npm start` runs them
 * (startEngines: dynalite, fauxqs, local SES), in memory. What the service
 * costs beyond this is the price of its own work (auth, rate limit, the
 * gateway, handlers), not of the engine or the HTTP stack.
 *
 * CALLS=locations answers instead with the calls `GET /v1/{group_id}/locations`
 * makes, through the same data-layer functions, in parallel as the service
 * sends them: the BatchGetItem of a credential and an application, the first
 * page's Query of the demo group, and the rate counter's claim when this
 * process's lease is spent (the same lease book the service keeps per function
 * instance). No gateway, no handler: the ceiling of any service that makes
 * these calls.
 */
const engines = await startEngines({ dataDir: null });
const client = new DynamoDBClient(localEndpoint(engines.dynamoEndpoint, process.env.AWS_REGION ?? 'us-east-1', engines.credentials));
const tableName = 'customer-api-baseline';
await ensureTable(client, tableName);
const doc = DynamoDBDocumentClient.from(client);
const venues = DEMO_VENUES.groups[0]!.locations!;
for (const venue of venues) {
  const item = {
    ...locationKeys.location(DEMO_GROUP_ID, venue.id),
    ...venue,
    groupId: DEMO_GROUP_ID,
    status: 'active',
    createdAt: new Date().toISOString(),
  };
  await doc.send(new PutCommand({ TableName: tableName, Item: item }));
}
const key = locationKeys.location(DEMO_GROUP_ID, venues[0]!.id);

const db = { doc, tableName };
// The application and credential a bench token reads, of the service's shape: a read returns both items, as the service's does.
const now = new Date().toISOString();
const tokenHash = 'b'.repeat(64);
await appsRepo(db).create({
  clientId: 'bench-app',
  groupId: DEMO_GROUP_ID,
  name: 'bench',
  scopes: BENCH_SCOPES,
  allowedLocationIds: null,
  rateLimitPerMinute: APP_RATE_CEILING_PER_MINUTE,
  ownerEmail: null,
  status: 'active',
  credentialType: 'client_credentials',
  secretHash: 'a'.repeat(64),
  secretRotatedAt: now,
  tokenPrefix: '',
  expiresAt: null,
  createdAt: now,
});
await credentialsRepo(db).put({
  tokenHash,
  clientId: 'bench-app',
  groupId: DEMO_GROUP_ID,
  credentialType: 'client_credentials',
  issuedAt: now,
  expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
});
const authKeys = [credentialKeys.credential(tokenHash), appKeys.app('bench-app')];
if ([...(await readItems(db, authKeys)).values()].some((item) => item === null))
  throw new Error('the calls baseline must read items that exist');
const counters = rateCountersRepo(db);
const leases = rateLeases(counters);
leases.learn('bench-app', { limit: APP_RATE_CEILING_PER_MINUTE, warnAt: Math.ceil(APP_RATE_CEILING_PER_MINUTE * 0.8) });
const locationsCalls = async () => {
  const now = Date.now();
  const [, , page] = await Promise.all([
    readItems(db, authKeys),
    leases.acquire('bench-app', rateWindow(now), now),
    doc.send(new QueryCommand({ TableName: tableName, ...locationKeys.ofGroup(DEMO_GROUP_ID, { limit: GROUP_PAGE_LIMIT.default }) })),
  ]);
  return page.Items;
};
const answer =
  process.env.CALLS === 'locations'
    ? locationsCalls
    : async () => (await doc.send(new GetCommand({ TableName: tableName, Key: key }))).Item;

const server = createServer((_req, res) => {
  answer().then(
    (data) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ data }));
    },
    (err: Error) => {
      res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: err.message }));
    },
  );
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`READY ${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` })}`);
});
const stop = () => {
  server.close(() => void engines.stop().then(() => process.exit(0)));
  server.closeAllConnections();
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
