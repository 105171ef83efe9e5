import { Duration, Fn, SecretValue, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestCookieBehavior,
  OriginRequestHeaderBehavior,
  OriginRequestPolicy,
  OriginRequestQueryStringBehavior,
  OriginSslPolicy,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
  type ErrorResponse,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { CloudFrontTarget } from 'aws-cdk-lib/aws-route53-targets';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { ADMIN_ROOT, CONSOLE_API_ROOT } from '#contract/admin-routes';
import { ERRORS } from '#contract/errors';
import { TOKEN_PATH } from '#contract/routes';
import { MAX_REQUEST_BODY_BYTES } from '#platform/config';
import { NO_SNIFF, ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '#platform/http';
import { bodyTooLargeMessage } from '#platform/input';
import { TOKEN_BODY_TOO_LARGE, TOKEN_NO_CACHE } from '#lambdas/token/issue-token';
import type { RouteTableApi } from './api.js';
import { aliasRecords, publicDomain, type PublicDomain } from './api-domain.js';

/**
 * The edge in front of the HTTP API (docs/decisions/edge.md; docs/operations.md, "Domain and edge"): CloudFront
 * with AWS WAF, caching nothing, passing every viewer header but Host; the origin secret proves a request came
 * through it, a CloudFront Function tells the functions who the viewer was.
 */

/** WAF's rate window, and what a client it blocks is told to wait (Retry-After). */
export const EDGE_RATE_WINDOW_SECONDS = 300;
/** Addresses that may each send this many times what one application may be given (60 × the stage's per-route floor a minute). */
const EDGE_RATE_HEADROOM = 5;

/**
 * WAF's per-address limit over its 5-minute window, above everything the service itself lets through: one
 * application may be given at most 60 × perRouteFloor requests a minute (what every route's throttle lets through
 * at least), 300 × perRouteFloor in 5 minutes; five such applications may share an egress address.
 */
export function edgeRateLimit(capacity: { perRouteFloor: number }): number {
  return EDGE_RATE_HEADROOM * EDGE_RATE_WINDOW_SECONDS * capacity.perRouteFloor;
}

/**
 * The 429 WAF answers with, in the contract's /v1 error shape (contract section 7; lambdas/contract/errors.ts).
 * WAF's custom responses are static: the request id names the edge, and CloudFront's X-Amz-Cf-Id header
 * identifies the request itself.
 */
export const EDGE_RATE_LIMITED_BODY = {
  ok: false,
  version: 'v1',
  error: {
    code: 'rate_limited',
    message: `Too many requests from this address; retry after the Retry-After seconds (${EDGE_RATE_WINDOW_SECONDS}).`,
    status: ERRORS.rate_limited.status,
    requestId: 'edge',
  },
} as const;

/**
 * AWS WAF sees at most the first 16 KB of a body behind CloudFront (its default body inspection limit); a larger
 * body is "oversize", and a rule with OversizeHandling MATCH matches it whole:
 * https://docs.aws.amazon.com/waf/latest/developerguide/web-acl-setting-body-inspection-limit.html
 */
export const WAF_BODY_INSPECTION_BYTES = 16 * 1024;

/** The 413 the edge answers a `/v1` (or unknown path's) body over MAX_REQUEST_BODY_BYTES with, in the contract's shape. */
export const EDGE_BODY_TOO_LARGE_BODY = {
  ok: false,
  version: 'v1',
  error: {
    code: 'payload_too_large',
    message: bodyTooLargeMessage(MAX_REQUEST_BODY_BYTES),
    status: ERRORS.payload_too_large.status,
    requestId: 'edge',
  },
} as const;

/** The token endpoint's refusal of the same body, in its OAuth shape (RFC 6749 5.2), as the function words it. */
export const EDGE_TOKEN_BODY_TOO_LARGE_BODY = { error: 'invalid_request', error_description: TOKEN_BODY_TOO_LARGE } as const;

/**
 * Rules of AWS's core rule set that contract traffic trips, counted instead of blocked (their matches still show
 * in the rule group's metrics and sampled requests):
 * - SizeRestrictions_BODY blocks bodies over 8 KB; `/v1` takes JSON bodies up to 16 KiB (MAX_REQUEST_BODY_BYTES)
 *   and refuses larger ones itself with the contract's 413, and a published menu (the admin API's PUT, should it
 *   ever come through the edge) may be up to 1 MiB. WAF would answer those with a bare 403 instead.
 * - NoUserAgent_HEADER blocks requests without User-Agent; a customer's backend (curl scripts, HTTP libraries
 *   configured bare) need not send one, and the contract never asks for it.
 */
export const COUNTED_CORE_RULES = ['SizeRestrictions_BODY', 'NoUserAgent_HEADER'] as const;

/**
 * The viewer-request function: the viewer's address in `x-viewer-address`, replacing whatever a client sent
 * under that name (cloudfront-js-2.0; header names arrive lower-case, and assigning replaces every value).
 */
export const VIEWER_ADDRESS_FUNCTION = `function handler(event) {
  var request = event.request;
  request.headers['${VIEWER_ADDRESS_HEADER}'] = { value: event.viewer.ip };
  return request;
}
`;

/**
 * CloudFront caches these error codes 10 seconds by default when the origin says nothing about caching (API
 * Gateway's own answers don't); 0 keeps every answer the origin's own, which is what CACHING_DISABLED means for an API.
 * https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/HTTPStatusCodes.html
 */
const ERROR_CODES = [400, 403, 404, 405, 414, 416, 500, 501, 502, 503, 504];
const NO_ERROR_CACHING: ErrorResponse[] = ERROR_CODES.map((httpStatus) => ({ httpStatus, ttl: Duration.seconds(0) }));

/**
 * The shared secret between the edge and the functions. Generated by Secrets Manager at deploy time, never in the
 * template: the distribution gets its CloudFormation dynamic reference, which CloudFormation resolves while it
 * creates or updates it; the functions are told only its ARN and read it themselves (ServiceFunction.bindOriginSecret).
 */
export class OriginSecret extends Construct {
  readonly secret: Secret;
  /** The version CloudFront sends (-c originSecretVersion, after a rotation); absent: the current one at deploy time. */
  private readonly versionId: string | undefined;

  constructor(scope: Construct, id: string, props: { stageName: string; versionId?: string | undefined }) {
    super(scope, id);
    this.versionId = props.versionId;
    this.secret = new Secret(this, 'Secret', {
      description: `Customer API ${props.stageName}: the header value CloudFront sends the HTTP API (${ORIGIN_VERIFY_HEADER}) and the functions check`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotated by hand (docs/operations.md, "Rotating the origin secret"): put-secret-value, then a deploy that gives CloudFront the new version; the functions accept the current and previous versions meanwhile, so no request is lost. A rotation Lambda would still need that deploy.',
    });
  }

  /**
   * `{{resolve:secretsmanager:<arn>:SecretString:::<version id>}}`. unsafeUnwrap is acceptable here only because
   * this string is a dynamic reference: CloudFormation resolves it while deploying, and the secret's value never
   * appears in the synthesized template, the cloud assembly or this process. A new version id changes the
   * template, which is what makes CloudFormation resolve it again.
   */
  get reference(): string {
    return SecretValue.secretsManager(this.secret.secretArn, this.versionId ? { versionId: this.versionId } : {}).unsafeUnwrap();
  }
}

export type EdgeProps = {
  stageName: string;
  /** The HTTP API behind the edge: its execute-api host is the origin. */
  api: RouteTableApi;
  originSecret: OriginSecret;
  /** The stage's public domain: the distribution's alias, with its us-east-1 certificate (stageConfig requires one). */
  domain: PublicDomain;
  /** An existing CloudFront-scope web ACL instead of the one created here. */
  webAclArn?: string | undefined;
  /** WAF's per-address limit in 5 minutes (edgeRateLimit). */
  rateLimit: number;
};

/**
 * CloudFront + AWS WAF in front of the HTTP API. Nothing is cached (CACHING_DISABLED, no error caching); every
 * method passes; every viewer header but Host reaches the origin (API Gateway routes by its own Host), with every
 * query string and no cookie; the origin custom header carries the secret, over HTTPS only (TLS 1.2).
 */
export class Edge extends Construct {
  readonly distribution: Distribution;
  /** The created web ACL; undefined when one is imported. */
  readonly webAcl: CfnWebACL | undefined;

  constructor(scope: Construct, id: string, props: EdgeProps) {
    super(scope, id);
    const name = `customer-api-${props.stageName}-edge`;

    this.webAcl = props.webAclArn ? undefined : webAcl(this, name, props.rateLimit);
    const viewerAddress = new CloudFrontFunction(this, 'ViewerAddress', {
      comment: `Customer API ${props.stageName}: the viewer's address in ${VIEWER_ADDRESS_HEADER}`,
      code: FunctionCode.fromInline(VIEWER_ADDRESS_FUNCTION),
      runtime: FunctionRuntime.JS_2_0,
    });
    const originRequest = new OriginRequestPolicy(this, 'OriginRequest', {
      comment: 'Customer API: every viewer header but Host (API Gateway routes by its own), every query string, no cookie',
      headerBehavior: OriginRequestHeaderBehavior.denyList('Host'),
      queryStringBehavior: OriginRequestQueryStringBehavior.all(),
      cookieBehavior: OriginRequestCookieBehavior.none(),
    });
    // The functions send nosniff themselves; API Gateway's own answers (its 403, 413, 429, 500) cannot be given it
    // (an HTTP API has no gateway responses), so the edge adds it to every answer that passes it.
    const responseHeaders = new ResponseHeadersPolicy(this, 'ResponseHeaders', {
      comment: "Customer API: nosniff on every answer, API Gateway's own included",
      securityHeadersBehavior: { contentTypeOptions: { override: true } },
    });
    // The API's execute-api host, from its endpoint URL (https://<id>.execute-api.<region>.amazonaws.com).
    const apiHost = Fn.select(2, Fn.split('/', props.api.httpApi.apiEndpoint));
    const { certificate, zone } = publicDomain(this, props.domain);

    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Customer API ${props.stageName} (${props.domain.name})`,
      defaultBehavior: {
        origin: new HttpOrigin(apiHost, {
          protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
          originSslProtocols: [OriginSslPolicy.TLS_V1_2],
          // CloudFront overwrites a viewer's header of the same name with this value:
          // https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/add-origin-custom-headers.html
          customHeaders: { [ORIGIN_VERIFY_HEADER]: props.originSecret.reference },
        }),
        // An API answers HTTPS only: a redirect would come after the bearer token had crossed in clear.
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: originRequest,
        responseHeadersPolicy: responseHeaders,
        functionAssociations: [{ function: viewerAddress, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      domainNames: [props.domain.name],
      certificate,
      minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      httpVersion: HttpVersion.HTTP2_AND_3,
      errorResponses: NO_ERROR_CACHING,
      webAclId: props.webAclArn ?? this.webAcl!.attrArn,
    });
    if (zone) aliasRecords(this, zone, props.domain.name, new CloudFrontTarget(this.distribution));

    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          "The API's customers run venues in several countries (the demo group alone: US, UK, Australia); access is decided by OAuth client credentials, not by country.",
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          "Every request that passes the edge is in the HTTP API's access log and the function's access line (with the viewer's address from the edge); what WAF stops is in its CloudWatch metrics and sampled requests. Standard logs (v2, delivered to CloudWatch Logs) would hold each request a third time, at CloudWatch's ingestion price.",
      },
    );
  }

  get url(): string {
    return `https://${this.distribution.distributionDomainName}`;
  }
}

/**
 * The web ACL (CLOUDFRONT scope, so created in us-east-1; stageConfig refuses another region): a per-address rate
 * rule answering 429 with Retry-After in the contract's error shape, AWS's core rule set with the two rules
 * contract traffic trips counted, and the known-bad-inputs rule set. Everything else is allowed.
 */
function webAcl(scope: Construct, name: string, rateLimit: number): CfnWebACL {
  const visibility = (metricName: string) => ({ cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName });
  const managed = (
    groupName: string,
    priority: number,
    ruleActionOverrides?: CfnWebACL.RuleActionOverrideProperty[],
  ): CfnWebACL.RuleProperty => ({
    name: groupName,
    priority,
    overrideAction: { none: {} },
    statement: {
      managedRuleGroupStatement: { vendorName: 'AWS', name: groupName, ...(ruleActionOverrides ? { ruleActionOverrides } : {}) },
    },
    visibilityConfig: visibility(`${name}-${groupName}`),
  });
  const [rateLimited, bodyTooLargeKey, tokenBodyTooLarge] = ['rate-limited', 'body-too-large', 'token-body-too-large'];
  return new CfnWebACL(scope, 'WebAcl', {
    name,
    description:
      'Customer API edge: a per-address rate limit answering 429, bodies over the limit refused, the AWS core and known-bad-inputs rule sets',
    scope: 'CLOUDFRONT',
    defaultAction: { allow: {} },
    visibilityConfig: visibility(name),
    customResponseBodies: {
      [rateLimited]: { contentType: 'APPLICATION_JSON', content: JSON.stringify(EDGE_RATE_LIMITED_BODY) },
      [bodyTooLargeKey]: { contentType: 'APPLICATION_JSON', content: JSON.stringify(EDGE_BODY_TOO_LARGE_BODY) },
      [tokenBodyTooLarge]: { contentType: 'APPLICATION_JSON', content: JSON.stringify(EDGE_TOKEN_BODY_TOO_LARGE_BODY) },
    },
    rules: [
      {
        name: 'RateLimitPerAddress',
        priority: 0,
        statement: { rateBasedStatement: { limit: rateLimit, aggregateKeyType: 'IP', evaluationWindowSec: EDGE_RATE_WINDOW_SECONDS } },
        action: {
          block: {
            customResponse: {
              responseCode: ERRORS.rate_limited.status,
              customResponseBodyKey: rateLimited,
              responseHeaders: [
                { name: 'Retry-After', value: String(EDGE_RATE_WINDOW_SECONDS) },
                { name: 'Cache-Control', value: 'no-store' },
                ...Object.entries(NO_SNIFF).map(([name, value]) => ({ name, value })),
              ],
            },
          },
        },
        visibilityConfig: visibility(`${name}-RateLimitPerAddress`),
      },
      // Bodies past the largest the route takes, refused in its own shape before they can reach Lambda's 6 MB.
      bodyTooLarge(
        'TokenBodyTooLarge',
        1,
        pathIs(TOKEN_PATH, 'EXACTLY'),
        { status: 400, key: tokenBodyTooLarge, headers: TOKEN_NO_CACHE },
        (rule) => visibility(`${name}-${rule}`),
      ),
      bodyTooLarge(
        'BodyTooLarge',
        2,
        // The admin API's two doors take bodies up to 1 MiB, more than WAF can measure, and API Gateway's IAM and
        // JWT authorizers refuse an unauthenticated request there before any function runs.
        { notStatement: { statement: { orStatement: { statements: [pathIs(`${ADMIN_ROOT}/`), pathIs(`${CONSOLE_API_ROOT}/`)] } } } },
        { status: ERRORS.payload_too_large.status, key: bodyTooLargeKey, headers: { 'Cache-Control': 'no-store' } },
        (rule) => visibility(`${name}-${rule}`),
      ),
      managed(
        'AWSManagedRulesCommonRuleSet',
        3,
        COUNTED_CORE_RULES.map((rule) => ({ name: rule, actionToUse: { count: {} } })),
      ),
      managed('AWSManagedRulesKnownBadInputsRuleSet', 4),
    ],
  });
}

/** The request's path, URL-decoded as API Gateway routes it, matching `path` exactly or as a prefix. */
function pathIs(path: string, positionalConstraint: 'EXACTLY' | 'STARTS_WITH' = 'STARTS_WITH'): CfnWebACL.StatementProperty {
  return {
    byteMatchStatement: {
      fieldToMatch: { uriPath: {} },
      searchString: path,
      positionalConstraint,
      textTransformations: [{ priority: 0, type: 'URL_DECODE' }],
    },
  };
}

/**
 * A rule blocking a body over MAX_REQUEST_BODY_BYTES on the paths `where` matches, answering `status` with the
 * custom body `key`. The limit is WAF's whole view of a body, so a larger one is oversize and matches.
 */
function bodyTooLarge(
  name: string,
  priority: number,
  where: CfnWebACL.StatementProperty,
  answer: { status: number; key: string; headers: Record<string, string> },
  visibility: (metricName: string) => CfnWebACL.VisibilityConfigProperty,
): CfnWebACL.RuleProperty {
  // A limit past WAF's view would refuse every body WAF cannot measure, ones the routes take included.
  if (MAX_REQUEST_BODY_BYTES > WAF_BODY_INSPECTION_BYTES) throw new Error('the edge cannot measure bodies up to MAX_REQUEST_BODY_BYTES');
  const bodyOverLimit: CfnWebACL.StatementProperty = {
    sizeConstraintStatement: {
      fieldToMatch: { body: { oversizeHandling: 'MATCH' } },
      comparisonOperator: 'GT',
      size: MAX_REQUEST_BODY_BYTES,
      textTransformations: [{ priority: 0, type: 'NONE' }],
    },
  };
  return {
    name,
    priority,
    statement: { andStatement: { statements: [where, bodyOverLimit] } },
    action: {
      block: {
        customResponse: {
          responseCode: answer.status,
          customResponseBodyKey: answer.key,
          responseHeaders: Object.entries({ ...answer.headers, ...NO_SNIFF }).map(([header, value]) => ({ name: header, value })),
        },
      },
    },
    visibilityConfig: visibility(name),
  };
}
