import { compileFunction } from 'node:vm';
import { type PolicyValidationPluginReport } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CachePolicy } from 'aws-cdk-lib/aws-cloudfront';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '#contract/errors';
import { FAMILIES } from '#contract/routes';
import { errorBody } from '#contract/schemas/common';
import { FAMILY_TAG } from '#lib/constructs/service-function';
import {
  COUNTED_CORE_RULES,
  EDGE_BODY_TOO_LARGE_BODY,
  EDGE_RATE_LIMITED_BODY,
  EDGE_TOKEN_BODY_TOO_LARGE_BODY,
  WAF_BODY_INSPECTION_BYTES,
  EDGE_RATE_WINDOW_SECONDS,
  edgeRateLimit,
  VIEWER_ADDRESS_FUNCTION,
} from '#lib/constructs/edge';
import { CustomerApiStack } from '#lib/stack';
import { STAGE_TABLE, stageConfig, type Stage, type StageContext } from '#lib/stages';
import { ADMIN_ROOT, CONSOLE_API_ROOT } from '#contract/admin-routes';
import { oauthError } from '#lambdas/token/schemas';
import { MAX_REQUEST_BODY_BYTES } from '#platform/config';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '#platform/http';
import { STAGE_CONTEXT } from '../support/stage-context.js';
import { testApp } from '../support/stage-template.js';
import * as v from 'valibot';

type Json = Record<string, any>;

/** The stage synthesized with its test context plus `extra`, without bundling, and what cdk-nag's AwsSolutions pack says of it. */
function synth(stage: Stage, extra: StageContext = {}): { template: Template; nag: PolicyValidationPluginReport } {
  const app = testApp();
  const pack = new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true });
  const stack = new CustomerApiStack(app, `CustomerApi-${stage}`, { config: stageConfig(stage, { ...STAGE_CONTEXT[stage], ...extra }) });
  const template = Template.fromStack(stack);
  return { template, nag: pack.validateScope(app) };
}

const of = (template: Template, type: string) => template.findResources(type) as Record<string, Json>;
const only = (template: Template, type: string): [string, Json] => {
  const entries = Object.entries(of(template, type));
  expect(entries, type).toHaveLength(1);
  return entries[0]!;
};
const outputs = (template: Template) => template.toJSON().Outputs as Json;

/** The distribution in front of the API (the console has its own, whose comment names the console). */
function edgeDistribution(template: Template): Json {
  const edges = Object.values(of(template, 'AWS::CloudFront::Distribution')).filter(
    (d) => !String(d.Properties.DistributionConfig.Comment).includes('console'),
  );
  expect(edges).toHaveLength(1);
  return edges[0]!.Properties.DistributionConfig;
}

/** Every HTTP function (the /v1 families, the admin API's and the producer API's), by family tag. */
const HTTP_FUNCTIONS: readonly string[] = [...FAMILIES, 'admin-api', 'producer-api'];
/** The IAM-signed APIs: called on the API's own host, never through the edge, so never told the origin secret. */
const SIGNED = new Set(['admin-api', 'producer-api']);
function httpFunctions(template: Template): [string, Json][] {
  const tagOf = (fn: Json) => ((fn.Properties.Tags ?? []) as { Key: string; Value: string }[]).find((t) => t.Key === FAMILY_TAG)?.Value;
  const found = Object.values(of(template, 'AWS::Lambda::Function'))
    .map((fn) => [tagOf(fn), fn] as [string | undefined, Json])
    .filter((entry): entry is [string, Json] => entry[0] !== undefined && HTTP_FUNCTIONS.includes(entry[0]));
  expect(found.map(([family]) => family).sort()).toEqual([...HTTP_FUNCTIONS].sort());
  return found;
}

/** The origin secrets of the stack (other secrets, such as a smoke application's, are not this page's). */
const originSecrets = (template: Template) =>
  Object.entries(of(template, 'AWS::SecretsManager::Secret')).filter(([, s]) =>
    String(s.Properties.Description).includes(ORIGIN_VERIFY_HEADER),
  );
const originSecret = (template: Template): [string, Json] => {
  const found = originSecrets(template);
  expect(found).toHaveLength(1);
  return found[0]!;
};

/** `{{resolve:secretsmanager:<the secret>:SecretString:::<version id>}}` as CloudFormation sees it. */
const dynamicReference = (secretId: string, versionId = '') => ({
  'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, `:SecretString:::${versionId}}}`]],
});

/** What a function's environment and role say of the origin secret: its variables, and its statements naming the secret. */
function originSecretUse(template: Template, secretId: string, fn: Json): { variables: Json; statements: Json[] } {
  const roleId = fn.Properties.Role['Fn::GetAtt'][0];
  const statements = Object.values(of(template, 'AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as Json[]).some((role) => role.Ref === roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Json[])
    .filter((statement) => JSON.stringify(statement).includes(secretId) || JSON.stringify(statement).includes('secretsmanager'));
  return { variables: fn.Properties.Environment?.Variables ?? {}, statements };
}

const nagFindings = (report: PolicyValidationPluginReport) =>
  report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);

describe('the edge (prod: edge on, api.example.com with an imported us-east-1 certificate)', () => {
  let template: Template;
  let nag: PolicyValidationPluginReport;
  beforeAll(() => {
    ({ template, nag } = synth('prod'));
  });

  it('puts one distribution in front of the HTTP API: HTTPS only to viewer and origin, every method, the domain as alias', () => {
    const config = edgeDistribution(template);
    const [apiId] = only(template, 'AWS::ApiGatewayV2::Api');
    const [origin] = config.Origins as Json[];
    expect(config.Origins).toHaveLength(1);
    // The origin is the API's execute-api host, taken from its endpoint URL.
    expect(origin!.DomainName).toEqual({ 'Fn::Select': [2, { 'Fn::Split': ['/', { 'Fn::GetAtt': [apiId, 'ApiEndpoint'] }] }] });
    expect(origin!.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
    const behaviour = config.DefaultCacheBehavior;
    expect(behaviour.ViewerProtocolPolicy).toBe('https-only');
    expect([...behaviour.AllowedMethods].sort()).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT']);
    expect(config.CacheBehaviors).toBeUndefined();
    expect(config.Aliases).toEqual(['api.example.com']);
    expect(config.ViewerCertificate).toEqual({
      AcmCertificateArn: STAGE_CONTEXT.prod.certificateArn,
      MinimumProtocolVersion: 'TLSv1.2_2021',
      SslSupportMethod: 'sni-only',
    });
  });

  it('caches nothing: the managed CachingDisabled policy, and no error response cached either', () => {
    const config = edgeDistribution(template);
    expect(config.DefaultCacheBehavior.CachePolicyId).toBe(CachePolicy.CACHING_DISABLED.cachePolicyId);
    expect(config.DefaultCacheBehavior.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    const errors = config.CustomErrorResponses as Json[];
    expect(errors.map((e) => e.ErrorCode).sort()).toEqual([400, 403, 404, 405, 414, 416, 500, 501, 502, 503, 504]);
    for (const e of errors) expect(e).toEqual({ ErrorCode: e.ErrorCode, ErrorCachingMinTTL: 0 });
  });

  it('forwards every viewer header but Host, every query string and no cookie', () => {
    const config = edgeDistribution(template);
    const policies = of(template, 'AWS::CloudFront::OriginRequestPolicy');
    const policy = policies[config.DefaultCacheBehavior.OriginRequestPolicyId.Ref]!;
    expect(policy.Properties.OriginRequestPolicyConfig).toMatchObject({
      HeadersConfig: { HeaderBehavior: 'allExcept', Headers: ['Host'] },
      QueryStringsConfig: { QueryStringBehavior: 'all' },
      CookiesConfig: { CookieBehavior: 'none' },
    });
  });

  it("adds nosniff to every answer that passes it, API Gateway's own included, over any the origin sent", () => {
    const config = edgeDistribution(template);
    const policies = of(template, 'AWS::CloudFront::ResponseHeadersPolicy');
    const policy = policies[config.DefaultCacheBehavior.ResponseHeadersPolicyId.Ref]!;
    expect(policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig).toEqual({ ContentTypeOptions: { Override: true } });
  });

  it('runs a viewer-request function that sets x-viewer-address to the viewer, over whatever the client sent', () => {
    const config = edgeDistribution(template);
    const associations = config.DefaultCacheBehavior.FunctionAssociations as Json[];
    expect(associations).toHaveLength(1);
    expect(associations[0]!.EventType).toBe('viewer-request');
    const functionId = associations[0]!.FunctionARN['Fn::GetAtt'][0];
    const fn = of(template, 'AWS::CloudFront::Function')[functionId]!;
    expect(fn.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
    expect(fn.Properties.FunctionCode).toBe(VIEWER_ADDRESS_FUNCTION);
    // The function itself, on CloudFront's event shape (lower-case header names, { value } objects).
    const handler = compileFunction(`${fn.Properties.FunctionCode}; return handler;`)() as (event: Json) => Json;
    const spoofed = {
      request: {
        method: 'GET',
        uri: '/v1/g/locations',
        headers: {
          [VIEWER_ADDRESS_HEADER]: { value: '198.51.100.1', multiValue: [{ value: '198.51.100.1' }, { value: '10.0.0.1' }] },
          authorization: { value: 'Bearer t' },
        },
      },
      viewer: { ip: '203.0.113.7' },
    };
    const out = handler(spoofed);
    expect(out.headers[VIEWER_ADDRESS_HEADER]).toEqual({ value: '203.0.113.7' });
    expect(out.headers.authorization).toEqual({ value: 'Bearer t' });
  });

  it('sends the origin secret as a custom header: a Secrets Manager dynamic reference, never the value', () => {
    const config = edgeDistribution(template);
    const [secretId, secret] = originSecret(template);
    expect(secret.Properties.GenerateSecretString).toMatchObject({ ExcludePunctuation: true });
    expect(secret.Properties.SecretString).toBeUndefined();
    expect(config.Origins[0].OriginCustomHeaders).toEqual([{ HeaderName: ORIGIN_VERIFY_HEADER, HeaderValue: dynamicReference(secretId) }]);
  });

  it("tells the /v1 and token functions only the secret's ARN, with GetSecretValue on it alone; admin, producer and the rest nothing", () => {
    const [secretId] = originSecret(template);
    const http = httpFunctions(template);
    for (const [family, fn] of http) {
      const { variables, statements } = originSecretUse(template, secretId, fn);
      expect(variables.PUBLIC_BASE_URL, family).toBe('https://api.example.com');
      expect(variables.ORIGIN_SECRET, family).toBeUndefined();
      if (SIGNED.has(family)) {
        expect(variables.ORIGIN_SECRET_ARN, family).toBeUndefined();
        expect(statements, family).toEqual([]);
        continue;
      }
      expect(variables.ORIGIN_SECRET_ARN, family).toEqual({ Ref: secretId });
      expect(statements, family).toEqual([{ Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: { Ref: secretId } }]);
    }
    const all = Object.values(of(template, 'AWS::Lambda::Function'));
    const others = all.filter((fn) => !http.some(([, h]) => h === fn));
    expect(others.length).toBeGreaterThan(0);
    for (const fn of others) expect(originSecretUse(template, secretId, fn).variables.ORIGIN_SECRET_ARN).toBeUndefined();
    // GetFunctionConfiguration shows the environment: no function's holds a value, or a reference resolved into one.
    for (const fn of all) expect(JSON.stringify(fn.Properties.Environment ?? {})).not.toContain('{{resolve:');
  });

  it('protects the distribution with a CLOUDFRONT web ACL: the core rule set with the two counted rules, known bad inputs, and a per-address rate limit', () => {
    const [aclId, acl] = only(template, 'AWS::WAFv2::WebACL');
    expect(edgeDistribution(template).WebACLId).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    const p = acl.Properties;
    expect(p.Scope).toBe('CLOUDFRONT');
    expect(p.DefaultAction).toEqual({ Allow: {} });
    const rules = p.Rules as Json[];
    expect(rules.map((r) => r.Name)).toEqual([
      'RateLimitPerAddress',
      'TokenBodyTooLarge',
      'BodyTooLarge',
      'AWSManagedRulesCommonRuleSet',
      'AWSManagedRulesKnownBadInputsRuleSet',
    ]);
    expect(new Set(rules.map((r) => r.Priority)).size).toBe(rules.length);
    for (const rule of [p, ...rules])
      expect(rule.VisibilityConfig).toMatchObject({ CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true });

    const core = rules.find((r) => r.Name === 'AWSManagedRulesCommonRuleSet')!;
    expect(core.OverrideAction).toEqual({ None: {} });
    expect(core.Statement.ManagedRuleGroupStatement).toMatchObject({ VendorName: 'AWS', Name: 'AWSManagedRulesCommonRuleSet' });
    expect(core.Statement.ManagedRuleGroupStatement.RuleActionOverrides).toEqual([
      { Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } },
      { Name: 'NoUserAgent_HEADER', ActionToUse: { Count: {} } },
    ]);
    expect([...COUNTED_CORE_RULES]).toEqual(['SizeRestrictions_BODY', 'NoUserAgent_HEADER']);
    const bad = rules.find((r) => r.Name === 'AWSManagedRulesKnownBadInputsRuleSet')!;
    expect(bad.OverrideAction).toEqual({ None: {} });
    expect(bad.Statement.ManagedRuleGroupStatement).toEqual({ VendorName: 'AWS', Name: 'AWSManagedRulesKnownBadInputsRuleSet' });
  });

  it("limits each address above what the service lets one application do, and answers 429 with Retry-After in the contract's error shape", () => {
    const [, acl] = only(template, 'AWS::WAFv2::WebACL');
    const rate = (acl.Properties.Rules as Json[]).find((r) => r.Name === 'RateLimitPerAddress')!;
    // 5 applications at the most the stage may give one (60 × perRouteFloor a minute), over WAF's 5-minute window.
    const { perRouteFloor } = STAGE_TABLE.prod.capacity;
    expect(rate.Statement.RateBasedStatement).toEqual({
      AggregateKeyType: 'IP',
      EvaluationWindowSec: 300,
      Limit: edgeRateLimit({ perRouteFloor }),
    });
    expect(edgeRateLimit({ perRouteFloor })).toBe(5 * 300 * perRouteFloor);
    expect(edgeRateLimit({ perRouteFloor })).toBeGreaterThan(60 * perRouteFloor * 5);
    const response = rate.Action.Block.CustomResponse;
    expect(response.ResponseCode).toBe(429);
    expect(response.ResponseHeaders).toContainEqual({ Name: 'Retry-After', Value: String(EDGE_RATE_WINDOW_SECONDS) });
    expect(response.ResponseHeaders).toContainEqual({ Name: 'X-Content-Type-Options', Value: 'nosniff' });
    expect(EDGE_RATE_WINDOW_SECONDS).toBe(300);
    const body = acl.Properties.CustomResponseBodies[response.CustomResponseBodyKey];
    expect(body.ContentType).toBe('APPLICATION_JSON');
    const parsed = JSON.parse(body.Content);
    expect(parsed).toEqual(EDGE_RATE_LIMITED_BODY);
    // The /v1 error shape the OpenAPI document declares, with the contract's code and status for a rate limit.
    expect(v.is(errorBody, parsed)).toBe(true);
    expect(parsed.error).toMatchObject({ code: 'rate_limited', status: ERRORS.rate_limited.status });
  });

  it("refuses bodies past the routes' limit in each API's own shape: /oauth/token 400 invalid_request, the rest 413 but the admin API's doors", () => {
    const [, acl] = only(template, 'AWS::WAFv2::WebACL');
    const rules = acl.Properties.Rules as Json[];
    const bodies = acl.Properties.CustomResponseBodies as Json;
    // WAF sees the first 16 KB of a body behind CloudFront: a body over the limit is measured, or oversize and matched.
    expect(MAX_REQUEST_BODY_BYTES).toBeLessThanOrEqual(WAF_BODY_INSPECTION_BYTES);
    const overLimit = {
      SizeConstraintStatement: {
        FieldToMatch: { Body: { OversizeHandling: 'MATCH' } },
        ComparisonOperator: 'GT',
        Size: MAX_REQUEST_BODY_BYTES,
        TextTransformations: [{ Priority: 0, Type: 'NONE' }],
      },
    };
    const path = (searchString: string, constraint: string) => ({
      ByteMatchStatement: {
        FieldToMatch: { UriPath: {} },
        SearchString: searchString,
        PositionalConstraint: constraint,
        TextTransformations: [{ Priority: 0, Type: 'URL_DECODE' }],
      },
    });
    const token = rules.find((r) => r.Name === 'TokenBodyTooLarge')!;
    const rest = rules.find((r) => r.Name === 'BodyTooLarge')!;
    // Both before the managed rule groups, the token endpoint's first (a block ends the evaluation).
    const core = rules.find((r) => r.Name === 'AWSManagedRulesCommonRuleSet')!;
    expect(token.Priority).toBeLessThan(rest.Priority);
    expect(rest.Priority).toBeLessThan(core.Priority);
    expect(token.Statement).toEqual({ AndStatement: { Statements: [path('/oauth/token', 'EXACTLY'), overLimit] } });
    expect(rest.Statement).toEqual({
      AndStatement: {
        Statements: [
          {
            NotStatement: {
              Statement: {
                OrStatement: { Statements: [path(`${ADMIN_ROOT}/`, 'STARTS_WITH'), path(`${CONSOLE_API_ROOT}/`, 'STARTS_WITH')] },
              },
            },
          },
          overLimit,
        ],
      },
    });

    const answerOf = (rule: Json) => {
      const response = rule.Action.Block.CustomResponse;
      expect(bodies[response.CustomResponseBodyKey].ContentType).toBe('APPLICATION_JSON');
      return {
        status: response.ResponseCode,
        headers: response.ResponseHeaders,
        body: JSON.parse(bodies[response.CustomResponseBodyKey].Content),
      };
    };
    const refusedToken = answerOf(token);
    expect(refusedToken.status).toBe(400);
    expect(refusedToken.body).toEqual(EDGE_TOKEN_BODY_TOO_LARGE_BODY);
    expect(v.is(oauthError, refusedToken.body)).toBe(true);
    expect(refusedToken.body).toEqual({
      error: 'invalid_request',
      error_description: `The request body exceeds ${MAX_REQUEST_BODY_BYTES} bytes.`,
    });
    expect(refusedToken.headers).toEqual(
      expect.arrayContaining([
        { Name: 'Cache-Control', Value: 'no-store' },
        { Name: 'Pragma', Value: 'no-cache' },
        { Name: 'X-Content-Type-Options', Value: 'nosniff' },
      ]),
    );
    const refused = answerOf(rest);
    expect(refused.status).toBe(413);
    expect(refused.body).toEqual(EDGE_BODY_TOO_LARGE_BODY);
    expect(v.is(errorBody, refused.body)).toBe(true);
    expect(refused.body.error).toMatchObject({ code: 'payload_too_large', status: ERRORS.payload_too_large.status });
    expect(refused.headers).toEqual(
      expect.arrayContaining([
        { Name: 'Cache-Control', Value: 'no-store' },
        { Name: 'X-Content-Type-Options', Value: 'nosniff' },
      ]),
    );
  });

  it("puts no regional custom domain on the API (the domain is the distribution's) and outputs both URLs", () => {
    expect(Object.keys(of(template, 'AWS::ApiGatewayV2::DomainName'))).toEqual([]);
    expect(Object.keys(of(template, 'AWS::ApiGatewayV2::ApiMapping'))).toEqual([]);
    // An imported certificate and no hosted zone: nothing to create in DNS or ACM.
    expect(Object.keys(of(template, 'AWS::CertificateManager::Certificate'))).toEqual([]);
    expect(Object.keys(of(template, 'AWS::Route53::RecordSet'))).toEqual([]);
    const out = outputs(template);
    expect(out.DomainUrl.Value).toBe('https://api.example.com');
    expect(out.EdgeUrl.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [expect.stringMatching(/^EdgeDistribution/), 'DomainName'] }]],
    });
  });

  it('passes cdk-nag with every acknowledgement specific', () => {
    expect(nagFindings(nag)).toEqual([]);
  });
});

describe('the edge with an imported web ACL', () => {
  const webAclArn = 'arn:aws:wafv2:us-east-1:111111111111:global/webacl/platform-edge/0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d';
  let template: Template;
  beforeAll(() => {
    ({ template } = synth('prod', { webAclArn }));
  });

  it('creates no web ACL and attaches the imported one by ARN', () => {
    expect(Object.keys(of(template, 'AWS::WAFv2::WebACL'))).toEqual([]);
    expect(edgeDistribution(template).WebACLId).toBe(webAclArn);
  });
});

describe('the edge after a rotation of its origin secret (-c originSecretVersion)', () => {
  const originSecretVersion = '0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9';
  let template: Template;
  beforeAll(() => {
    ({ template } = synth('prod', { originSecretVersion }));
  });

  it('gives CloudFront that version of the same secret (a changed reference, so CloudFormation resolves it again); the functions keep its ARN', () => {
    const [secretId] = originSecret(template);
    expect(edgeDistribution(template).Origins[0].OriginCustomHeaders).toEqual([
      { HeaderName: ORIGIN_VERIFY_HEADER, HeaderValue: dynamicReference(secretId, originSecretVersion) },
    ]);
    for (const [family, fn] of httpFunctions(template))
      if (!SIGNED.has(family)) expect(fn.Properties.Environment.Variables.ORIGIN_SECRET_ARN, family).toEqual({ Ref: secretId });
  });

  it('is refused when it is not a version id, or without the edge', () => {
    expect(() => stageConfig('prod', { ...STAGE_CONTEXT.prod, originSecretVersion: 'latest' })).toThrow(
      /originSecretVersion "latest" is not a Secrets Manager version id/,
    );
    expect(() => stageConfig('dev', { ...STAGE_CONTEXT.dev, originSecretVersion })).toThrow(/-c originSecretVersion needs the edge/);
  });
});

describe('the edge with a hosted zone instead of a certificate', () => {
  const zone = { certificateArn: '', hostedZoneId: 'Z0123456789ABCDEFGHIJ', hostedZoneName: 'example.com' };
  let template: Template;
  let nag: PolicyValidationPluginReport;
  beforeAll(() => {
    ({ template, nag } = synth('prod', zone));
  });

  it('creates the certificate in us-east-1, validated through DNS in the zone, for the distribution', () => {
    const [certId, cert] = only(template, 'AWS::CertificateManager::Certificate');
    expect(cert.Properties).toMatchObject({
      DomainName: 'api.example.com',
      ValidationMethod: 'DNS',
      DomainValidationOptions: [{ DomainName: 'api.example.com', HostedZoneId: zone.hostedZoneId }],
    });
    expect(edgeDistribution(template).ViewerCertificate.AcmCertificateArn).toEqual({ Ref: certId });
  });

  it('points A and AAAA alias records of the name at the distribution', () => {
    const records = Object.values(of(template, 'AWS::Route53::RecordSet'));
    expect(records.map((r) => r.Properties.Type).sort()).toEqual(['A', 'AAAA']);
    for (const record of records) {
      expect(record.Properties).toMatchObject({ Name: 'api.example.com.', HostedZoneId: zone.hostedZoneId });
      expect(record.Properties.AliasTarget.DNSName).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^EdgeDistribution/), 'DomainName'] });
      // CloudFront's fixed alias zone, by partition.
      expect(record.Properties.AliasTarget.HostedZoneId).toEqual({
        'Fn::FindInMap': ['AWSCloudFrontPartitionHostedZoneIdMap', { Ref: 'AWS::Partition' }, 'zoneId'],
      });
      expect(template.toJSON().Mappings.AWSCloudFrontPartitionHostedZoneIdMap.aws.zoneId).toBe('Z2FDTNDATAQYW2');
    }
  });

  it('passes cdk-nag', () => {
    expect(nagFindings(nag)).toEqual([]);
  });
});

describe('no edge (dev): nothing of it, and no origin check', () => {
  let template: Template;
  beforeAll(() => {
    ({ template } = synth('dev'));
  });

  it('creates no secret, web ACL, edge function or second distribution, and tells no function an origin secret', () => {
    expect(originSecrets(template)).toEqual([]);
    expect(Object.keys(of(template, 'AWS::WAFv2::WebACL'))).toEqual([]);
    // Only the console's: its index rewrite, and its distribution.
    expect(Object.keys(of(template, 'AWS::CloudFront::Function'))).toEqual([expect.stringMatching(/^Console/)]);
    expect(Object.values(of(template, 'AWS::CloudFront::Distribution')).map((d) => d.Properties.DistributionConfig.Comment)).toEqual([
      expect.stringContaining('console'),
    ]);
    for (const fn of Object.values(of(template, 'AWS::Lambda::Function'))) {
      expect(fn.Properties.Environment?.Variables?.ORIGIN_SECRET).toBeUndefined();
      expect(fn.Properties.Environment?.Variables?.ORIGIN_SECRET_ARN).toBeUndefined();
    }
    expect(JSON.stringify(template.toJSON())).not.toContain('secretsmanager:GetSecretValue');
    for (const [, fn] of httpFunctions(template)) expect(fn.Properties.Environment.Variables.PUBLIC_BASE_URL).toBe('');
    expect(outputs(template).EdgeUrl).toBeUndefined();
    expect(outputs(template).DomainUrl).toBeUndefined();
    expect(Object.keys(of(template, 'AWS::ApiGatewayV2::DomainName'))).toEqual([]);
  });
});

describe('a domain without an edge (staging): a regional custom domain on the HTTP API', () => {
  const certificateArn = 'arn:aws:acm:eu-west-1:111111111111:certificate/5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b';
  let template: Template;
  let nag: PolicyValidationPluginReport;
  beforeAll(() => {
    ({ template, nag } = synth('staging', { domainName: 'api.staging.example.com', certificateArn }));
  });

  it('maps a regional, dual-stack, TLS 1.2 domain with the imported certificate to the $default stage', () => {
    const [domainId, domain] = only(template, 'AWS::ApiGatewayV2::DomainName');
    expect(domain.Properties).toEqual({
      DomainName: 'api.staging.example.com',
      DomainNameConfigurations: [
        { CertificateArn: certificateArn, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2', IpAddressType: 'dualstack' },
      ],
    });
    const [, mapping] = only(template, 'AWS::ApiGatewayV2::ApiMapping');
    const [apiId] = only(template, 'AWS::ApiGatewayV2::Api');
    const [stageId, stage] = only(template, 'AWS::ApiGatewayV2::Stage');
    expect(stage.Properties.StageName).toBe('$default');
    // The stage by name, created first: no mapping key, so paths stay as the route table writes them.
    expect(mapping.Properties).toEqual({ ApiId: { Ref: apiId }, DomainName: { Ref: domainId }, Stage: '$default' });
    expect(mapping.DependsOn).toContain(stageId);
  });

  it('has no edge and no origin check, builds absolute URLs on the domain, and names the DNS target to point at', () => {
    expect(Object.keys(of(template, 'AWS::WAFv2::WebACL'))).toEqual([]);
    expect(originSecrets(template)).toEqual([]);
    for (const [family, fn] of httpFunctions(template)) {
      expect(fn.Properties.Environment.Variables.ORIGIN_SECRET_ARN, family).toBeUndefined();
      expect(fn.Properties.Environment.Variables.PUBLIC_BASE_URL, family).toBe('https://api.staging.example.com');
    }
    const [domainId] = only(template, 'AWS::ApiGatewayV2::DomainName');
    const out = outputs(template);
    expect(out.DomainUrl.Value).toBe('https://api.staging.example.com');
    expect(out.DomainDnsTarget.Value).toEqual({ 'Fn::GetAtt': [domainId, 'RegionalDomainName'] });
    expect(out.EdgeUrl).toBeUndefined();
    expect(Object.keys(of(template, 'AWS::Route53::RecordSet'))).toEqual([]);
  });

  it('passes cdk-nag', () => {
    expect(nagFindings(nag)).toEqual([]);
  });
});

describe('a domain without an edge, in a hosted zone', () => {
  const zone = { domainName: 'api.staging.example.com', hostedZoneId: 'Z0123456789ABCDEFGHIJ', hostedZoneName: 'staging.example.com' };
  let template: Template;
  beforeAll(() => {
    ({ template } = synth('staging', zone));
  });

  it('creates a DNS-validated certificate for the domain and A and AAAA aliases at its regional name', () => {
    const [certId, cert] = only(template, 'AWS::CertificateManager::Certificate');
    expect(cert.Properties).toMatchObject({
      DomainName: zone.domainName,
      ValidationMethod: 'DNS',
      DomainValidationOptions: [{ DomainName: zone.domainName, HostedZoneId: zone.hostedZoneId }],
    });
    const [domainId, domain] = only(template, 'AWS::ApiGatewayV2::DomainName');
    expect(domain.Properties.DomainNameConfigurations[0].CertificateArn).toEqual({ Ref: certId });
    const records = Object.values(of(template, 'AWS::Route53::RecordSet'));
    expect(records.map((r) => r.Properties.Type).sort()).toEqual(['A', 'AAAA']);
    for (const record of records) {
      expect(record.Properties).toMatchObject({ Name: `${zone.domainName}.`, HostedZoneId: zone.hostedZoneId });
      expect(record.Properties.AliasTarget).toEqual({
        DNSName: { 'Fn::GetAtt': [domainId, 'RegionalDomainName'] },
        HostedZoneId: { 'Fn::GetAtt': [domainId, 'RegionalHostedZoneId'] },
      });
    }
    expect(outputs(template).DomainDnsTarget).toBeUndefined();
  });
});
