/**
 * The console's addresses: a hash route per page and per application, destination, delivery and dead letter
 * (`#/destinations/dst_…`), so a link can be pasted, opened in a new tab, reloaded and followed back and forward.
 * Hash routes never reach a server: the CloudFront rewrite and the local site serve the one page as they are.
 */
export const PAGES = {
  applications: 'Applications',
  destinations: 'Destinations',
  'dead-letters': 'Dead letters',
  deliveries: 'Deliveries',
  menus: 'Menus',
  audit: 'Audit trail',
  'owner-mail': 'Owner mail',
  'token-keys': 'Token keys',
} as const;
export type Page = keyof typeof PAGES;

/**
 * A page; with `id`, one application, destination, dead letter, or delivery or event (its story, its deliveries) on
 * it; with `delivery`, one of a destination's deliveries marked in its lists.
 */
export type Route = { page: Page; id?: string; delivery?: string };

/** The pages whose items have an address of their own. */
const WITH_ID: ReadonlySet<Page> = new Set(['applications', 'destinations', 'dead-letters', 'deliveries']);

export const HOME: Route = { page: 'applications' };

/** The route a location hash names; null for anything else (an empty hash, an unknown page, a stray segment). */
export function routeOf(hash: string): Route | null {
  const match = /^#\/([a-z-]+)(?:\/([^/]+))?(?:\/deliveries\/([^/]+))?$/.exec(hash);
  if (!match || !Object.hasOwn(PAGES, match[1]!)) return null;
  const page = match[1] as Page;
  const [id, delivery] = [match[2], match[3]].map((part) => (part === undefined ? undefined : safeDecode(part)));
  if (id === null || delivery === null) return null;
  if (id !== undefined && !WITH_ID.has(page)) return null;
  if (delivery !== undefined && page !== 'destinations') return null;
  return { page, ...(id ? { id } : {}), ...(delivery ? { delivery } : {}) };
}

/** The hash of a route: what an `<a href>` holds. */
export function hrefOf({ page, id, delivery }: Route): string {
  return `#/${page}${id ? `/${encodeURIComponent(id)}` : ''}${id && delivery ? `/deliveries/${encodeURIComponent(delivery)}` : ''}`;
}

function safeDecode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}
