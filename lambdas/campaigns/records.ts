import {
  deleteItem,
  getItem,
  groupPartition,
  putInOrder,
  queryAll,
  replaceInOrder,
  unlessConflict,
  withoutKeys,
  type Db,
  type ItemQuery,
  type OrderedOutcome,
  type SourceOrder,
} from '#data/store';

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

/** A campaign item's place in its source's order; null when it was written outside any. */
const orderOf = (item: Record<string, unknown>): SourceOrder | null =>
  typeof item.sourceMs === 'number' ? { sourceMs: item.sourceMs, sequence: Number(item.sequence ?? 0) } : null;

/**
 * The campaign and its links, each written in its source's order (lambdas/producers/campaigns.ts decides in which
 * order they are written); the reads of lambdas/campaigns/campaigns.ts read only the links.
 */
export function campaignsRepo(db: Db) {
  const links = async (query: ItemQuery) => (await queryAll(db, query)).map(withoutKeys<CampaignLink>);
  return {
    /** The campaign as stored (strongly consistent), with its place in its source's order. */
    async get(groupId: string, campaignId: string): Promise<{ campaign: Campaign; order: SourceOrder | null } | null> {
      const item = await getItem(db, campaignKeys.campaign(groupId, campaignId), true);
      return item ? { campaign: withoutKeys<Campaign>(item), order: orderOf(item) } : null;
    },
    /** The campaign in `order` (putInOrder); `replaced`: the campaign an applied put replaced, if any. */
    async putInOrder(campaign: Campaign, order: SourceOrder): Promise<{ outcome: OrderedOutcome; replaced: Campaign | null }> {
      const { outcome, replaced } = await replaceInOrder(
        db,
        { ...campaignKeys.campaign(campaign.groupId, campaign.id), ...campaign },
        order,
      );
      return { outcome, replaced: replaced ? withoutKeys<Campaign>(replaced) : null };
    },
    /** A location's link, in the campaign's order: an older update never replaces a newer link. */
    putLink: (link: CampaignLink, order: SourceOrder): Promise<OrderedOutcome> =>
      putInOrder(db, { ...campaignKeys.link(link.groupId, link.locationId, link.id), ...link }, order),
    /** Deletes a location's link unless it is newer than `order` (a newer update lists the location again). */
    async deleteLink(groupId: string, locationId: string, campaignId: string, order: SourceOrder): Promise<void> {
      await unlessConflict(
        deleteItem(db, {
          Key: campaignKeys.link(groupId, locationId, campaignId),
          ConditionExpression: 'attribute_not_exists(sourceMs) OR sourceMs < :ms OR (sourceMs = :ms AND #seq <= :seq)',
          ExpressionAttributeNames: { '#seq': 'sequence' },
          ExpressionAttributeValues: { ':ms': order.sourceMs, ':seq': order.sequence },
        }),
      );
    },
    /** Every campaign of a group. */
    async list(groupId: string): Promise<Campaign[]> {
      return (await queryAll(db, campaignKeys.ofGroup(groupId))).map(withoutKeys<Campaign>);
    },
    atLocation: (groupId: string, locationId: string) => links(campaignKeys.atLocation(groupId, locationId)),
    atLocations: (groupId: string, first: string, last: string) => links(campaignKeys.atLocations(groupId, first, last)),
  };
}
