import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { CredentialType } from './apps.js';
import type { Db } from './store.js';

/**
 * A bearer credential, stored only under the SHA-256 of its value: an access
 * token from the token endpoint, or a legacy bearer credential.
 */
export type Credential = {
  tokenHash: string;
  clientId: string;
  /** The application's group, fixed for its life; lets auth check the path before reading more. */
  groupId: string;
  credentialType: CredentialType;
  issuedAt: string;
  /** null for legacy bearer credentials, which live until their application is revoked. */
  expiresAt: string | null;
};

export const credentialKeys = {
  credential: (tokenHash: string) => ({ PK: `TOKEN#${tokenHash}`, SK: 'TOKEN' }),
};

export type CredentialsRepo = {
  get(tokenHash: string): Promise<Credential | null>;
  put(credential: Credential): Promise<void>;
};

export function credentialsRepo({ doc, tableName }: Db): CredentialsRepo {
  return {
    /** Strongly consistent: a token is usable the moment the token endpoint returns it. */
    async get(tokenHash: string): Promise<Credential | null> {
      const { Item } = await doc.send(
        new GetCommand({ TableName: tableName, Key: credentialKeys.credential(tokenHash), ConsistentRead: true }),
      );
      if (!Item) return null;
      const { PK: _pk, SK: _sk, ttl: _ttl, ...credential } = Item;
      return credential as Credential;
    },
    async put(credential: Credential): Promise<void> {
      const ttl = credential.expiresAt ? Math.ceil(Date.parse(credential.expiresAt) / 1000) : undefined;
      await doc.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...credentialKeys.credential(credential.tokenHash), ...credential, ttl },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    },
  };
}
