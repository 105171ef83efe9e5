import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll, type Db } from './db.js';
import { groupPartition } from './groups.js';
import type { ItemQuery } from './preload.js';

/** A campaign of a group, shown at the locations it lists. */
export type Campaign = {
  groupId: string;
  id: string;
  name: string;
  locationIds: string[];
  startsAt: string;
  endsAt: string;
  /** Paused by an operator; otherwise the status follows the clock. */
  paused: boolean;
  updatedAt: string;
};

export const campaignKeys = {
  campaign: (groupId: string, campaignId: string) => ({ PK: groupPartition(groupId), SK: `CAMPAIGN#${campaignId}` }),
  prefix: 'CAMPAIGN#',
  /** The Query that lists a group's campaigns, in id order. */
  ofGroup: (groupId: string): ItemQuery => ({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': groupPartition(groupId), ':sk': campaignKeys.prefix },
  }),
};

export type CampaignsRepo = {
  put(campaign: Campaign): Promise<void>;
  list(groupId: string): Promise<Campaign[]>;
};

export function campaignsRepo({ doc, tableName }: Db): CampaignsRepo {
  return {
    async put(campaign: Campaign): Promise<void> {
      await doc.send(
        new PutCommand({ TableName: tableName, Item: { ...campaignKeys.campaign(campaign.groupId, campaign.id), ...campaign } }),
      );
    },
    /** Every campaign of a group, in id order. */
    async list(groupId: string): Promise<Campaign[]> {
      const items = await queryAll(doc, { TableName: tableName, ...campaignKeys.ofGroup(groupId) });
      return items.map(({ PK: _pk, SK: _sk, ...rest }) => rest as Campaign);
    },
  };
}
