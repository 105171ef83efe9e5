import { appsRepo, credentialsRepo } from '#data/apps';
import { rateCountersRepo } from '#data/rate-counters';
import { onlyRepositories } from '#data/store';
import type { RepositoryFactories } from '#data/repositories';
import { tokenKeysRepo } from '#data/token-keys';
import { defaultDeps, type Deps } from '#platform/deps';
import { httpShell } from '#platform/http';
import { issueToken } from './issue-token.js';

/** What issuing a token reads and writes: the rate counter, the application, the signing key, the token's hash. */
export const repositories = {
  rateCounters: rateCountersRepo,
  apps: appsRepo,
  tokenKeys: tokenKeysRepo,
  credentials: credentialsRepo,
} satisfies RepositoryFactories;

/** The token function: POST /oauth/token, with OAuth error bodies rather than the /v1 error shape. */
export function createHandler(allDeps: Deps) {
  const deps = { ...allDeps, store: onlyRepositories(allDeps.store, repositories) };
  return httpShell('token', deps).handler(async (event, context) => {
    context.operation = 'issueToken';
    // The caller's address as the shell found it (platform/http.ts, originOf): the viewer's, behind the edge.
    return issueToken(event, deps, context.ip);
  });
}

/** The Lambda entry (lib/functions.ts). */
export const handler = createHandler(defaultDeps(repositories));
