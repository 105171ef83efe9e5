import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { createHandler as discovery } from '#lambdas/discovery/index';
import type { Deps } from '#platform/deps';
import type { Family } from '#contract/routes';
import { createHandler as token } from '#lambdas/token/index';
import { createHandler as bevq } from '#lambdas/bevq/index';
import { createHandler as sportsq } from '#lambdas/sportsq/index';
import { createHandler as matriq } from '#lambdas/matriq/index';
import { createHandler as campaigns } from '#lambdas/campaigns/index';
import { createHandler as orderboard } from '#lambdas/orderboard/index';
import { createHandler as assets } from '#lambdas/assets/index';
import { createHandler as shiftq } from '#lambdas/shiftq/index';

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Every family's handler factory; typed by Family so a new family cannot be forgotten here. */
const FACTORIES: Record<Family, (deps: Deps) => ProxyHandler> = { token, discovery, bevq, shiftq, sportsq, matriq, campaigns, orderboard, assets };

/** `deps`: one for every family, or each family's own (the local runtime: its clients, guarded by its role). */
export function createFamilyHandlers(deps: Deps | ((family: Family) => Deps)): Record<Family, ProxyHandler> {
  const depsOf = typeof deps === 'function' ? deps : () => deps;
  return Object.fromEntries(Object.entries(FACTORIES).map(([family, create]) => [family, create(depsOf(family as Family))])) as Record<
    Family,
    ProxyHandler
  >;
}
