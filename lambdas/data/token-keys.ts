import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { applied, type Db } from './db.js';

/** The service's signing keys: access-token tags, and page tokens (cursors) when PAGE_TOKEN_KEY is not configured. */
export const tokenKeyKeys = {
  /** The one current access-token key; a later rotation adds versions beside it. */
  current: { PK: 'TOKEN_KEY', SK: 'v1' },
  /** The page-token key, under the key it was first stored with (review pages had it first). */
  pageToken: { PK: 'SHIFTQ', SK: 'PAGE_TOKEN_KEY' },
};

export type TokenKeysRepo = {
  /** The service's key for access-token tags, or null while no token was ever issued; read once per process once found. */
  find(): Promise<Buffer | null>;
  /** The key, created by the first caller that finds none (the token function: only it writes). */
  ensure(): Promise<Buffer>;
  /** The page-token key: the stored one, or this candidate stored by the first caller. */
  pageKey(candidate: string): Promise<string>;
};

/** Per table, for the life of the process: the key never changes under a running function. */
const found = new Map<string, Promise<Buffer | null>>();

export function tokenKeysRepo({ doc, tableName }: Db): TokenKeysRepo {
  const find = (): Promise<Buffer | null> => {
    let key = found.get(tableName);
    if (!key) {
      key = doc
        .send(new GetCommand({ TableName: tableName, Key: tokenKeyKeys.current, ConsistentRead: true }))
        .then(({ Item }) => (Item ? Buffer.from(Item.key as string, 'base64') : null));
      found.set(tableName, key);
      // Only a key is remembered: a failed read, or none yet, is asked again next time.
      const forget = () => void found.delete(tableName);
      key.then((k) => k ?? forget(), forget);
    }
    return key;
  };
  return {
    find,
    async ensure() {
      const existing = await find();
      if (existing) return existing;
      // Two first callers race: one write wins, both then use the stored key.
      await applied(
        doc.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...tokenKeyKeys.current, key: randomBytes(32).toString('base64') },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        ),
      );
      return (await find())!;
    },
    async pageKey(candidate) {
      const { Attributes } = await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: tokenKeyKeys.pageToken,
          UpdateExpression: 'SET secret = if_not_exists(secret, :candidate)',
          ExpressionAttributeValues: { ':candidate': candidate },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return String(Attributes!.secret);
    },
  };
}
