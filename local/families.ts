import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { createHandler as discovery } from '#lambdas/discovery/discovery';
import type { Family } from '#contract/routes';
import type { LocalDeps } from './repositories.js';
import { createHandler as token } from '#lambdas/token/token';
import { createHandler as bevq } from '#lambdas/bevq/bevq';
import { createHandler as sportsq } from '#lambdas/sportsq/sportsq';
import { createHandler as matriq } from '#lambdas/matriq/matriq';
import { createHandler as campaigns } from '#lambdas/campaigns/campaigns';
import { createHandler as orderboard } from '#lambdas/orderboard/orderboard';
import { createHandler as assets } from '#lambdas/assets/assets';
import { createHandler as shiftq } from '#lambdas/shiftq/shiftq';

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Every family's handler factory; typed by Family so a new family cannot be forgotten here. */
const FACTORIES: Record<Family, (deps: LocalDeps) => ProxyHandler> = {
  token,
  discovery,
  bevq,
  shiftq,
  sportsq,
  matriq,
  campaigns,
  orderboard,
  assets,
};

/** `deps`: one for every family, or each family's own (the local runtime: its clients, guarded by its role). */
export function createFamilyHandlers(deps: LocalDeps | ((family: Family) => LocalDeps)): Record<Family, ProxyHandler> {
  const depsOf = typeof deps === 'function' ? deps : () => deps;
  return Object.fromEntries(Object.entries(FACTORIES).map(([family, create]) => [family, create(depsOf(family as Family))])) as Record<
    Family,
    ProxyHandler
  >;
}
