import { Validations, type RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CfnRoute,
  CfnStage,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
  type IHttpRouteAuthorizer,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer, HttpUserPoolAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import type { IUserPool, IUserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ADMIN_PROXY_PATH, consolePathOf, type AdminRoute } from '#contract/admin-routes';
import { type Family, type Route, TOKEN_PATH } from '#contract/routes';
import { PRODUCER_PROXY_PATH } from '#lambdas/producers/routes';
import { CONSOLE_TOKEN_SCOPE } from '../console-build.js';

export type RouteTableApiProps = {
  /** Names the API: customer-api-<stage>. */
  stageName: string;
  routes: readonly Route[];
  functions: Record<Family, IFunction>;
  /** Answers every path and method the route table lacks (the `$default` route) with the service's own 404/405. */
  catchAllFamily: Family;
  /** The admin API: its routes, each behind IAM (SigV4) authorization, all served by one function. */
  admin: { routes: readonly AdminRoute[]; function: IFunction };
  /** The producer API's function: one catch-all below /producer behind IAM, each producer's policy naming its paths. */
  producer: IFunction;
  /**
   * API Gateway's throttles (steady requests a second, burst): each route of the mix its own, by route key
   * (`GET /v1/...`) and the producer route, every other route the default's (lib/route-throttles.ts derives them).
   */
  throttling: { routes: Record<string, { rateLimit: number; burstLimit: number }>; default: { rateLimit: number; burstLimit: number } };
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
};

/**
 * Standard fields only: no bodies, no headers (Authorization never reaches a log). The integration error says
 * why API Gateway answered 500 itself (a failed invocation, such as an event over Lambda's 6 MB).
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  caller: '$context.identity.userArn',
  requestTime: '$context.requestTime',
  httpMethod: '$context.httpMethod',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  gatewayError: '$context.error.message',
} as const;
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS));

/**
 * The HTTP API, built from the route tables (docs/decisions/api-gateway.md
 * says why an HTTP API and not a REST API): every /v1 route integrated with
 * its family's function, every admin route and `/admin/{proxy+}` behind IAM
 * with the admin function, `/producer/{proxy+}` behind IAM with the producer
 * function, and the `$default` route (every other path and method) with the
 * catch-all family. Payload format 1.0 hands the functions the event they
 * already parse.
 */
export class RouteTableApi extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  private readonly admin: { integration: HttpLambdaIntegration };

  constructor(scope: Construct, id: string, props: RouteTableApiProps) {
    super(scope, id);
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });

    // One integration per function, reused by its routes, with one API-wide invoke permission.
    const integrationOf = (name: string, fn: IFunction) =>
      new HttpLambdaIntegration(`${name}-integration`, fn, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_1_0,
        scopePermissionToRoute: false,
      });
    const integrations = Object.fromEntries(
      Object.entries(props.functions).map(([family, fn]) => [family, integrationOf(family, fn)]),
    ) as Record<Family, HttpLambdaIntegration>;

    this.httpApi = new HttpApi(this, 'HttpApi', {
      apiName: `customer-api-${props.stageName}`,
      description: 'Customer API: OAuth token endpoint, /v1 resources and the IAM-authorized /admin/v1 and /producer/v1 APIs',
      createDefaultStage: false,
      defaultIntegration: integrations[props.catchAllFamily],
    });
    // `$default`: no stage name in the URL or in the path the functions receive.
    this.stage = new HttpStage(this, 'Stage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttling.default,
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
    });

    const add = (method: string, path: string, integration: HttpLambdaIntegration, authorizer?: IHttpRouteAuthorizer) =>
      this.httpApi.addRoutes({ path, methods: [method as HttpMethod], integration, ...(authorizer ? { authorizer } : {}) });
    for (const route of props.routes) add(route.method, route.path, integrations[route.family]);
    // Any other method on the token endpoint reaches the token function too, which answers it in the OAuth shape.
    add(HttpMethod.ANY, TOKEN_PATH, integrations.token);
    const iam = new HttpIamAuthorizer();
    this.admin = { integration: integrationOf('admin-api', props.admin.function) };
    for (const route of props.admin.routes) add(route.method, route.path, this.admin.integration, iam);
    // Any other method or path below /admin still needs a signature, and the admin function answers 404, or 405 with Allow.
    add(HttpMethod.ANY, ADMIN_PROXY_PATH, this.admin.integration, iam);
    // One route for every producer route: IAM lets each producer through on its own paths only (its policy), and
    // the producer function resolves the route from the path.
    add(HttpMethod.ANY, PRODUCER_PROXY_PATH, integrationOf('producer-api', props.producer), iam);

    // Each route's own throttle. A stage's route settings name route keys the API must already have, so the stage waits
    // for the routes. The property is untyped JSON in the L1 (CloudFormation's names as they are, no conversion).
    const cfnStage = this.stage.node.defaultChild as CfnStage;
    cfnStage.routeSettings = Object.fromEntries(
      Object.entries(props.throttling.routes).map(([key, t]) => [
        key,
        { ThrottlingRateLimit: t.rateLimit, ThrottlingBurstLimit: t.burstLimit },
      ]),
    );
    const cfnRoutes = this.httpApi.node.findAll().filter((c): c is CfnRoute => c instanceof CfnRoute);
    for (const route of cfnRoutes) cfnStage.node.addDependency(route);

    for (const route of cfnRoutes.filter((c) => c.authorizationType === 'NONE')) {
      Validations.of(route).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          'No API Gateway authorizer by design: /oauth/token and /v1/openapi.json are public, the $default route answers 404/405, and every other /v1 function verifies the bearer token itself (hash lookup, expiry, revocation, scope, location) before any data access; API Gateway could not answer its challenges (RFC 6750 WWW-Authenticate) as the contract wants.',
      });
    }
  }

  /**
   * The console's prefix: one catch-all below CONSOLE_API_ROOT to the admin function, which resolves the route from
   * the path (as it does below /admin), behind a JWT authorizer of the console's user pool (IAM stays on /admin for
   * scripts). One route, not a copy of each admin route: the console needs no per-route key, and the stack keeps room
   * under CloudFormation's resource limit.
   */
  addConsoleRoutes(userPool: IUserPool, client: IUserPoolClient): void {
    this.httpApi.addRoutes({
      path: consolePathOf(ADMIN_PROXY_PATH),
      methods: [HttpMethod.ANY],
      integration: this.admin.integration,
      authorizer: new HttpUserPoolAuthorizer('ConsoleAuthorizer', userPool, { userPoolClients: [client] }),
      // A required scope lets access tokens only through: a Cognito ID token, also signed by the pool for the
      // same client, has no `scope` claim (docs/decisions/console-hosting.md).
      authorizationScopes: [CONSOLE_TOKEN_SCOPE],
    });
  }

  get url(): string {
    return this.stage.url;
  }
}
