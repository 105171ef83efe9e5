/** What path resolution needs of a route: the /v1 and admin route tables resolve with the same rules. */
export type Routable = { method: string; path: string };
type Match<R extends Routable> = { route: R; params: Record<string, string> };
export type Resolution<R extends Routable> = { match: Match<R> } | { allowed: string[] } | null;

export type Resolver<R extends Routable> = (method: string, path: string) => Resolution<R>;

/**
 * A resolver for one route table: it maps a concrete path to its route.
 * Literal segments beat parameters at the same depth, as in API Gateway. It
 * returns the allowed methods when only the method is wrong, and null when
 * no route has the path. The path is the one an HTTP API hands a function:
 * already percent-decoded, so parameters are taken as they stand (decoding
 * again would turn `%2525` into `%` and `%252F` into a separator).
 */
export function pathResolver<R extends Routable>(routes: readonly R[]): Resolver<R> {
  const compiled = routes.map((route) => ({ route, segments: route.path.split('/').slice(1) }));
  return (method, path) => {
    const parts = path.split('/').slice(1);
    const candidates: { route: R; params: Record<string, string>; rank: string }[] = [];
    for (const { route, segments } of compiled) {
      if (segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let rank = '';
      const ok = segments.every((seg, i) => {
        const part = parts[i]!;
        if (seg.startsWith('{')) {
          if (part === '') return false;
          params[seg.slice(1, -1)] = part;
          rank += '1';
          return true;
        }
        rank += '0';
        return seg === part;
      });
      if (ok) candidates.push({ route, params, rank });
    }
    if (candidates.length === 0) return null;
    const best = candidates.reduce((a, b) => (b.rank < a.rank ? b : a)).rank;
    const bestPaths = candidates.filter((c) => c.rank === best);
    const hit = bestPaths.find((c) => c.route.method === method);
    if (hit) return { match: { route: hit.route, params: hit.params } };
    return { allowed: [...new Set(bestPaths.map((c) => c.route.method))].sort() };
  };
}
