import { getItem, queryAll, writeBatches, type Db, type ItemQuery, groupPartition, withoutKeys, putItem } from '#data/store';

/** A campaign of a group, shown at the locations it lists. */
type Campaign = {
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

/**
 * What a location shows of a campaign: one small link item per (location,
 * campaign), sorted by location, so a location's campaigns and a page of
 * locations' campaigns are each one Query over just them, never every
 * campaign of the group (docs/decisions/campaigns.md).
 */
export type CampaignLink = Omit<Campaign, 'locationIds' | 'updatedAt'> & {
  locationId: string;
  /** Where the campaign lists this location: a group's campaigns show their locations in the campaign's order. */
  position: number;
};

const LINK = 'CAMPAIGN_AT#';

export const campaignKeys = {
  campaign: (groupId: string, campaignId: string) => ({ PK: groupPartition(groupId), SK: `CAMPAIGN#${campaignId}` }),
  prefix: 'CAMPAIGN#',
  /** The Query that lists a group's campaigns, in id order. */
  ofGroup: (groupId: string): ItemQuery => ({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': groupPartition(groupId), ':sk': campaignKeys.prefix },
  }),
  link: (groupId: string, locationId: string, campaignId: string) => ({
    PK: groupPartition(groupId),
    SK: `${LINK}${locationId}#${campaignId}`,
  }),
  /** A location's campaign links. */
  atLocation: (groupId: string, locationId: string): ItemQuery => ({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': groupPartition(groupId), ':sk': `${LINK}${locationId}#` },
  }),
  /** The links of the locations from `first` to `last` in id order (a page of locations). */
  atLocations: (groupId: string, first: string, last: string): ItemQuery => ({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': groupPartition(groupId), ':from': `${LINK}${first}#`, ':to': `${LINK}${last}#\uffff` },
  }),
};

export function campaignsRepo(db: Db) {
  const links = async (query: ItemQuery) => (await queryAll(db, query)).map(withoutKeys<CampaignLink>);
  return {
    /** Writes the campaign and its links; links of locations it no longer lists go. */
    async put(campaign: Campaign): Promise<void> {
      const before = await getItem(db, campaignKeys.campaign(campaign.groupId, campaign.id), true);
      await putItem(db, { Item: { ...campaignKeys.campaign(campaign.groupId, campaign.id), ...campaign } });
      const { locationIds, updatedAt: _u, ...shown } = campaign;
      const gone = ((before?.locationIds as string[] | undefined) ?? []).filter((l) => !locationIds.includes(l));
      await writeBatches(db, [
        ...locationIds.map((locationId, position) => ({
          PutRequest: { Item: { ...campaignKeys.link(campaign.groupId, locationId, campaign.id), ...shown, locationId, position } },
        })),
        ...gone.map((locationId) => ({ DeleteRequest: { Key: campaignKeys.link(campaign.groupId, locationId, campaign.id) } })),
      ]);
    },
    /** Every campaign of a group (a load reads them to drop the links of locations a campaign no longer names). */
    async list(groupId: string): Promise<Campaign[]> {
      return (await queryAll(db, campaignKeys.ofGroup(groupId))).map(withoutKeys<Campaign>);
    },
    atLocation: (groupId: string, locationId: string) => links(campaignKeys.atLocation(groupId, locationId)),
    atLocations: (groupId: string, first: string, last: string) => links(campaignKeys.atLocations(groupId, first, last)),
  };
}
