import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The bundle baseline (bench/bundles.ts): the smallest useful Lambda on this
 * stack, one GetItem through the document client, bundled with the same
 * esbuild preset as every function of the service.
 */
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { pathParameters?: Record<string, string> | null }) => {
  const { Item } = await doc.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { PK: `GROUP#${event.pathParameters?.group_id}`, SK: 'META' } }),
  );
  return { statusCode: Item ? 200 : 404, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ data: Item ?? null }) };
};
