import { Validations, type RemovalPolicy } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseType,
  RestApi,
  type IResource,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ERRORS, type ErrorCode } from '../../lambdas/shared/errors.js';
import type { AdminRoute } from '../../lambdas/admin-api/routes.js';
import type { Family, Route } from '../../lambdas/shared/routes.js';

export type RouteTableApiProps = {
  routes: readonly Route[];
  functions: Record<Family, IFunction>;
  /** Answers every path and method the route table lacks with the service's own 404/405. */
  catchAllFamily: Family;
  /** The admin API: its routes, each behind IAM (SigV4) authorization, all served by one function. */
  admin: { routes: readonly AdminRoute[]; function: IFunction };
  stageName: string;
  throttling: { rateLimit: number; burstLimit: number };
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
};

type GatewayError = { type: ResponseType; status: number; code: ErrorCode; headers?: Record<string, string> };

/** API Gateway's own refusals, in the /v1 error shape; the status is what the client receives. */
const GATEWAY_ERRORS: readonly GatewayError[] = [
  { type: ResponseType.DEFAULT_4XX, status: 400, code: 'invalid_request' },
  { type: ResponseType.DEFAULT_5XX, status: 500, code: 'internal_error' },
  // API Gateway's 403 for a path without a resource; the catch-all normally answers first.
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, status: 404, code: 'not_found' },
  { type: ResponseType.RESOURCE_NOT_FOUND, status: 404, code: 'not_found' },
  { type: ResponseType.WAF_FILTERED, status: 403, code: 'forbidden' },
  { type: ResponseType.ACCESS_DENIED, status: 403, code: 'forbidden' },
  // IAM-authorized admin methods: a bad or expired SigV4 signature.
  { type: ResponseType.INVALID_SIGNATURE, status: 403, code: 'forbidden' },
  { type: ResponseType.EXPIRED_TOKEN, status: 403, code: 'forbidden' },
  { type: ResponseType.BAD_REQUEST_PARAMETERS, status: 400, code: 'invalid_request' },
  { type: ResponseType.BAD_REQUEST_BODY, status: 400, code: 'invalid_request' },
  { type: ResponseType.REQUEST_TOO_LARGE, status: 413, code: 'payload_too_large' },
  { type: ResponseType.UNSUPPORTED_MEDIA_TYPE, status: 415, code: 'unsupported_media_type' },
  // Stage throttling is a per-second token bucket.
  { type: ResponseType.THROTTLED, status: 429, code: 'rate_limited', headers: { 'Retry-After': "'1'" } },
  { type: ResponseType.QUOTA_EXCEEDED, status: 429, code: 'rate_limited' },
  { type: ResponseType.INTEGRATION_TIMEOUT, status: 504, code: 'internal_error' },
  { type: ResponseType.INTEGRATION_FAILURE, status: 504, code: 'internal_error' },
];

/**
 * The REST API, built from the route table: one resource per path segment,
 * the route's method integrated with its family's function, and `ANY` on
 * every resource plus `/{proxy+}` sent to the catch-all family.
 */
export class RouteTableApi extends Construct {
  readonly restApi: RestApi;
  private readonly resources = new Map<string, IResource>();

  constructor(scope: Construct, id: string, props: RouteTableApiProps) {
    super(scope, id);
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });

    this.restApi = new RestApi(this, 'RestApi', {
      description: 'Customer API: OAuth token endpoint, /v1 resources and the IAM-authorized /admin/v1 API',
      // Called server to server; no CloudFront edge in front.
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // Binary files of file routes (base64 from Lambda): API Gateway decodes them for clients whose Accept names the type.
      binaryMediaTypes: [...new Set(props.routes.flatMap((r) => r.produces ?? []).filter((t) => t !== 'image/svg+xml'))],
      // Execution logging needs the account's API Gateway CloudWatch role.
      cloudWatchRole: true,
      deployOptions: {
        stageName: props.stageName,
        throttlingRateLimit: props.throttling.rateLimit,
        throttlingBurstLimit: props.throttling.burstLimit,
        tracingEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
        // Bodies carry client secrets and tokens.
        dataTraceEnabled: false,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        // Standard fields only: no bodies, no headers (Authorization never reaches a log).
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
      },
    });
    // The stack publishes the URL under its own output key (ApiUrl).
    this.restApi.node.tryRemoveChild('Endpoint');
    const validator = this.restApi.addRequestValidator('Validator', {
      validateRequestParameters: true,
      validateRequestBody: true,
    });

    for (const { type, status, code, headers } of GATEWAY_ERRORS) {
      this.restApi.addGatewayResponse(type.responseType, {
        type,
        statusCode: String(status),
        responseHeaders: { 'X-Request-Id': 'context.requestId', ...headers },
        templates: { 'application/json': errorBody(code, status) },
      });
    }

    const integrations = Object.fromEntries(
      Object.entries(props.functions).map(([family, fn]) => [
        family,
        // One API-wide invoke permission per function, not one per method: the
        // catch-all function sits on every resource and Lambda caps its policy at 20 KB.
        new LambdaIntegration(fn, { proxy: true, scopePermissionToMethod: false }),
      ]),
    ) as Record<Family, LambdaIntegration>;

    /** Every routed method: its path parameters required and checked by the validator. */
    const methodOptions = (path: string, operationName: string, authorizationType: AuthorizationType) => ({
      operationName,
      authorizationType,
      requestValidator: validator,
      requestParameters: Object.fromEntries([...path.matchAll(/\{(\w+)\}/g)].map((m) => [`method.request.path.${m[1]}`, true])),
    });
    for (const route of props.routes) {
      this.resourceFor(route.path).addMethod(route.method, integrations[route.family], methodOptions(route.path, route.operation, AuthorizationType.NONE));
    }

    // Admin resources stay out of `this.resources`: no unauthenticated catch-all method ever sits on them.
    const adminIntegration = new LambdaIntegration(props.admin.function, { proxy: true, scopePermissionToMethod: false });
    const adminMethods = props.admin.routes.map((route) =>
      this.restApi.root
        .resourceForPath(route.path)
        .addMethod(route.method, adminIntegration, methodOptions(route.path, `admin.${route.operation}`, AuthorizationType.IAM)),
    );

    const catchAll = integrations[props.catchAllFamily];
    const options = { authorizationType: AuthorizationType.NONE };
    for (const resource of [this.restApi.root, ...this.resources.values()]) resource.addMethod('ANY', catchAll, options);
    this.restApi.root.addProxy({ anyMethod: true, defaultIntegration: catchAll, defaultMethodOptions: options });

    for (const method of adminMethods) {
      Validations.of(method).acknowledge({
        id: 'AwsSolutions-COG4',
        reason: "Admin callers are the account's operators and automation with IAM credentials (SigV4), not Cognito users; IAM policies decide who may call which admin route.",
      });
    }
    for (const method of this.restApi.methods.filter((m) => !adminMethods.includes(m))) {
      Validations.of(method).acknowledge(
        {
          id: 'AwsSolutions-APIG4',
          reason:
            'No API Gateway authorizer by design: /oauth/token and /v1/openapi.json are public, and every other /v1 function verifies the bearer token itself (hash lookup, expiry, revocation, scope, location) before any data access.',
        },
        {
          id: 'AwsSolutions-COG4',
          reason:
            'Clients are backend applications holding OAuth client-credentials tokens issued by this service, not Cognito users; the functions verify those bearer tokens.',
        },
      );
    }
    Validations.of(this.restApi.deploymentStage).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason: 'The WAF web ACL is owned by the platform team and associated per stage outside this stack.',
    });
    Validations.of(this.restApi.node.findChild('CloudWatchRole')).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        "API Gateway's account-level logging role; AmazonAPIGatewayPushToCloudWatchLogs is the AWS-documented policy for it, and API Gateway creates and names the execution log groups itself.",
    });
  }

  get url(): string {
    return this.restApi.url;
  }

  /** The resource for a path, creating each missing segment once and reusing existing ones. */
  private resourceFor(path: string): IResource {
    let resource: IResource = this.restApi.root;
    let sofar = '';
    for (const segment of path.split('/').filter(Boolean)) {
      sofar += `/${segment}`;
      resource = resource.getResource(segment) ?? resource.addResource(segment);
      this.resources.set(sofar, resource);
    }
    return resource;
  }
}

function errorBody(code: ErrorCode, status: number): string {
  return JSON.stringify({
    ok: false,
    version: 'v1',
    error: { code, message: ERRORS[code].message, status, requestId: '$context.requestId' },
  });
}
