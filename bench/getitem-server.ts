import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { locationKeys } from '#data/locations';
import { localEndpoint } from '../lib/local/endpoints.js';
import { startEngines } from '../lib/local/engines.js';
import { ensureTable } from '../lib/local/provision.js';
import { DEMO_GROUP_ID, DEMO_VENUES } from '../lib/local/seed.js';

/**
 * The fair throughput baseline: a bare node:http server that answers each
 * request with one GetItem (document client) of a demo location, against
 * the same embedded engines in the same process as `npm start` runs them
 * (startEngines: dynalite, fauxqs, local SES), in memory. What the service
 * costs beyond this is the price of its own work (auth, rate limit, the
 * gateway, handlers), not of the engine or the HTTP stack.
 */
const engines = await startEngines({ dataDir: null });
const client = new DynamoDBClient(localEndpoint(engines.dynamoEndpoint, process.env.AWS_REGION ?? 'us-east-1'));
const tableName = 'customer-api-baseline';
await ensureTable(client, tableName);
const doc = DynamoDBDocumentClient.from(client);
const venue = DEMO_VENUES.groups[0]!.locations![0]!;
const key = locationKeys.location(DEMO_GROUP_ID, venue.id);
await doc.send(new PutCommand({ TableName: tableName, Item: { ...key, ...venue, groupId: DEMO_GROUP_ID, status: 'active', createdAt: new Date().toISOString() } }));

const server = createServer((_req, res) => {
  doc.send(new GetCommand({ TableName: tableName, Key: key })).then(
    ({ Item }) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ data: Item }));
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
