import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { CONSOLE_API_ROOT } from '#contract/admin-routes';
import type { ConsoleConfig } from '#contract/console-config';
import {
  CONSOLE_CLIENT_SCOPES,
  CONSOLE_KEY_PREFIX,
  CONSOLE_ROOT,
  CONSOLE_SECURITY_HEADERS,
  CONSOLE_TOKEN_SCOPE,
  CONSOLE_VIEWER_REQUEST_FUNCTION,
  consoleCsp,
  consoleObjects,
  LOCAL_CONSOLE_CONFIG,
} from '#lib/console-build';
import {
  REFERENCE_KEY_PREFIX,
  REFERENCE_PATH_PATTERN,
  REFERENCE_ROOT,
  REFERENCE_SECURITY_HEADERS,
  referenceObjects,
} from '#lib/reference-build';
import { CustomerApiStack } from '#lib/stack';
import { stageConfig } from '#lib/stages';
import { STAGE_CONTEXT } from '../support/stage-context.js';
import { testApp } from '../support/stage-template.js';

/**
 * The console as the stack publishes it (docs/decisions/console-hosting.md):
 * every URL the stack hands out — the `ConsoleUrl` output, the user pool
 * client's callback and logout URLs, the page's own redirect URI in its
 * config.json, and every URL the page references — reaches, through the
 * distribution's viewer-request function (evaluated on CloudFront's event
 * shape), a key the deployment uploads; the uploaded objects are the local
 * site's, with the same metadata; the response-headers policy adds exactly
 * the headers the local site sends; and the console's routes take access
 * tokens only.
 */
type Json = Record<string, any>;
/** The domain CloudFront would give the console's distribution (the example domain of CloudFront's documentation). */
const DISTRIBUTION_DOMAIN = 'd111111abcdef8.cloudfront.net';

let template: Template;
let assemblyDir = '';
let distributionId = '';

beforeAll(() => {
  const app = testApp({ stageAssets: true });
  const stack = new CustomerApiStack(app, 'CustomerApi-dev', { config: stageConfig('dev', STAGE_CONTEXT.dev) });
  template = Template.fromStack(stack);
  assemblyDir = app.outdir;
  [distributionId] = Object.entries(resources('AWS::CloudFront::Distribution')).find(([, d]) =>
    String(d.Properties.DistributionConfig.Comment).includes('console'),
  )!;
});

const resources = (type: string) => template.findResources(type) as Record<string, Json>;

/**
 * A CloudFormation value as a string at deploy time: the console distribution's domain is
 * DISTRIBUTION_DOMAIN, any other reference stays a visible placeholder.
 */
function render(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Json;
  if (v.Ref) return `<${v.Ref}>`;
  if (v['Fn::GetAtt']) {
    const [id, attribute] = v['Fn::GetAtt'] as [string, string];
    return id === distributionId && attribute === 'DomainName' ? DISTRIBUTION_DOMAIN : `<${id}.${attribute}>`;
  }
  if (v['Fn::Join']) {
    const [separator, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map(render).join(separator);
  }
  if (v['Fn::Select']) {
    const [
      index,
      {
        'Fn::Split': [separator, text],
      },
    ] = v['Fn::Select'] as [number, { 'Fn::Split': [string, unknown] }];
    return render(text).split(separator)[index]!;
  }
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}

/** The console distribution's viewer-request function, evaluated from the template's own text. */
function viewerRequest(): (event: Json) => Json {
  const config = resources('AWS::CloudFront::Distribution')[distributionId]!.Properties.DistributionConfig;
  const associations = config.DefaultCacheBehavior.FunctionAssociations as Json[];
  expect(associations).toHaveLength(1);
  expect(associations[0]!.EventType).toBe('viewer-request');
  const fn = resources('AWS::CloudFront::Function')[associations[0]!.FunctionARN['Fn::GetAtt'][0]]!;
  expect(fn.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
  return runInNewContext(`${fn.Properties.FunctionCode}\n;handler`, {}) as (event: Json) => Json;
}

/** The S3 key CloudFront asks the console bucket for, for a viewer's URL on the console's default behavior. */
function keyOf(url: string): string {
  const { hostname, pathname, search } = new URL(url);
  expect(hostname).toBe(DISTRIBUTION_DOMAIN);
  const querystring = Object.fromEntries([...new URLSearchParams(search)].map(([name, value]) => [name, { value }]));
  const event = {
    version: '1.0',
    context: { eventType: 'viewer-request', distributionDomainName: DISTRIBUTION_DOMAIN },
    viewer: { ip: '198.51.100.7' },
    request: { method: 'GET', uri: pathname, querystring, headers: { host: { value: DISTRIBUTION_DOMAIN } }, cookies: {} },
  };
  const request = viewerRequest()(event);
  // A request, not a generated response: S3 answers it.
  expect(request.statusCode).toBeUndefined();
  expect(request.uri.startsWith(CONSOLE_API_ROOT)).toBe(false);
  return request.uri.slice(1);
}

/**
 * What `aws s3 sync` in BucketDeployment's handler (python3.13) sets as Content-Type by extension: Python 3.13's
 * `mimetypes.types_map` (`.js` is `text/javascript` since 3.12, RFC 9239).
 */
const SYNC_GUESSES: Record<string, string> = {
  '.html': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

/** Each console deployment's objects: key, system metadata and the text the deployment writes (markers filled in). */
function uploaded(): Map<string, { contentType: string; cacheControl: string; text: string }> {
  const objects = new Map<string, { contentType: string; cacheControl: string; text: string }>();
  for (const deployment of Object.values(resources('Custom::CDKBucketDeployment'))) {
    const p = deployment.Properties;
    expect(render(p.DestinationBucketName)).toMatch(/^<ConsoleFiles/);
    (p.SourceObjectKeys as string[]).forEach((zip, i) => {
      const dir = join(assemblyDir, `asset.${zip.replace(/\.zip$/, '')}`);
      expect(existsSync(dir), zip).toBe(true);
      const markers = (p.SourceMarkers?.[i] ?? {}) as Json;
      for (const name of readdirSync(dir)) {
        let text = readFileSync(join(dir, name), 'utf8');
        for (const [marker, value] of Object.entries(markers)) text = text.split(marker).join(render(value));
        objects.set(`${p.DestinationBucketKeyPrefix ?? ''}${name}`, {
          // A deployment that sets none leaves the type to its `aws s3 sync`, which guesses it from the extension.
          contentType: p.SystemMetadata['content-type'] ?? SYNC_GUESSES[name.slice(name.lastIndexOf('.'))],
          cacheControl: p.SystemMetadata['cache-control'],
          text,
        });
      }
    });
  }
  return objects;
}

/** The uploaded objects below a prefix of the bucket. */
const uploadedUnder = (prefix: string) => new Map([...uploaded()].filter(([key]) => key.startsWith(prefix)));

/** The headers CloudFront writes for a response-headers policy's security headers (each one with override). */
function headersOf(policyId: string): Record<string, string> {
  const s = resources('AWS::CloudFront::ResponseHeadersPolicy')[policyId]!.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
  for (const header of Object.values<Json>(s)) expect(header.Override).toBe(true);
  return {
    'Content-Security-Policy': render(s.ContentSecurityPolicy.ContentSecurityPolicy),
    'Strict-Transport-Security': `max-age=${s.StrictTransportSecurity.AccessControlMaxAgeSec}${s.StrictTransportSecurity.IncludeSubdomains ? '; includeSubDomains' : ''}${s.StrictTransportSecurity.Preload ? '; preload' : ''}`,
    'X-Frame-Options': s.FrameOptions.FrameOption,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': s.ReferrerPolicy.ReferrerPolicy,
  };
}

/** Every URL the page itself asks for, relative to where it is loaded: its script and stylesheet (index.html), and what the script fetches. */
function referencesOf(objects: ReturnType<typeof uploaded>, pageUrl: string): string[] {
  const html = objects.get(keyOf(pageUrl))!.text;
  const attributes = [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  const script = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => objects.get(keyOf(new URL(m[1]!, pageUrl).href))!.text);
  const fetched = script.flatMap((js) => [...js.matchAll(/fetch\(\s*["']([^"']+)["']/g)].map((m) => m[1]!));
  expect(attributes.length).toBeGreaterThanOrEqual(2);
  expect(fetched).toContain('config.json');
  return [...attributes, ...fetched].map((ref) => new URL(ref, pageUrl).href);
}

describe('the console as the stack serves it (dev)', () => {
  it('maps every URL the stack publishes, and every URL the page references, to an object the deployment uploads', () => {
    const objects = uploadedUnder(CONSOLE_KEY_PREFIX);
    const outputs = template.findOutputs('ConsoleUrl');
    const consoleUrl = render(Object.values(outputs)[0]!.Value);
    const [, client] = Object.entries(resources('AWS::Cognito::UserPoolClient'))[0]!;
    const callbacks = (client.Properties.CallbackURLs as unknown[]).map(render);
    const logouts = (client.Properties.LogoutURLs as unknown[]).map(render);
    const config = JSON.parse(objects.get(`${CONSOLE_KEY_PREFIX}config.json`)!.text) as Extract<ConsoleConfig, { signIn: 'cognito' }>;
    const published = [consoleUrl, ...callbacks, ...logouts, config.redirectUri];
    expect(published).toEqual(Array(published.length).fill(`https://${DISTRIBUTION_DOMAIN}${CONSOLE_ROOT}`));

    const urls = [...published, ...referencesOf(objects, consoleUrl)];
    // Back from the sign-in page with a code: still the page.
    urls.push(`${consoleUrl}?code=abc&state=xyz`);
    for (const url of urls) expect(objects.has(keyOf(url)), `${url} → ${keyOf(url)}`).toBe(true);
    expect(keyOf(consoleUrl)).toBe(`${CONSOLE_KEY_PREFIX}index.html`);
    // Every object is reachable from those URLs: nothing uploaded that nothing asks for.
    expect(new Set(urls.map(keyOf))).toEqual(new Set(objects.keys()));
    // The page calls the API below the prefix the distribution forwards to API Gateway.
    expect(config.apiBase.startsWith(`${CONSOLE_API_ROOT}/`)).toBe(true);
  });

  it('uploads exactly the objects the local site serves, under the same keys, with the same Content-Type and Cache-Control', () => {
    const objects = uploadedUnder(CONSOLE_KEY_PREFIX);
    const local = consoleObjects(LOCAL_CONSOLE_CONFIG);
    expect([...objects.keys()].sort()).toEqual(local.map((o) => o.key).sort());
    for (const o of local) {
      const deployed = objects.get(o.key)!;
      expect({ key: o.key, contentType: deployed.contentType, cacheControl: deployed.cacheControl }).toEqual({
        key: o.key,
        contentType: o.contentType,
        cacheControl: o.cacheControl,
      });
      // The same built files; config.json is the one that differs by where the page runs.
      if (!o.key.endsWith('config.json')) expect(deployed.text, o.key).toBe(o.body);
    }
    expect(local.find((o) => o.key.endsWith('index.html'))!.cacheControl).toBe('no-cache');
    expect(local.find((o) => o.key.endsWith('config.json'))!.cacheControl).toBe('no-cache');
    // One deployment per site, each alone under its prefix, so its prune removes only what its site no longer has.
    const deployments = Object.values(resources('Custom::CDKBucketDeployment')).map((d) => d.Properties);
    expect(deployments.map((p) => p.DestinationBucketKeyPrefix).sort()).toEqual([CONSOLE_KEY_PREFIX, REFERENCE_KEY_PREFIX].sort());
    for (const p of deployments) {
      expect(p.Prune).toBe(true);
      expect(p.Exclude).toBeUndefined();
      expect(p.SystemMetadata['content-type']).toBeUndefined();
    }
  });

  it("runs the same viewer-request function as the local site: / and /console redirect, and the missing key stays missing (S3's 403 without ListBucket)", () => {
    const config = resources('AWS::CloudFront::Distribution')[distributionId]!.Properties.DistributionConfig;
    const fn = resources('AWS::CloudFront::Function')[config.DefaultCacheBehavior.FunctionAssociations[0].FunctionARN['Fn::GetAtt'][0]]!;
    expect(fn.Properties.FunctionCode).toBe(CONSOLE_VIEWER_REQUEST_FUNCTION);
    // No default root object: it would apply to `/` only, and the console is below /console/.
    expect(config.DefaultRootObject).toBeUndefined();
    expect(keyOf(`https://${DISTRIBUTION_DOMAIN}/console/nothing.js`)).toBe('console/nothing.js');
    // The distribution's root and the console's address without its slash answer 302 to the console.
    for (const uri of ['/', CONSOLE_ROOT.slice(0, -1)]) {
      const answer = viewerRequest()({ request: { method: 'GET', uri, querystring: {}, headers: {}, cookies: {} } });
      expect(answer, uri).toEqual({ statusCode: 302, statusDescription: 'Found', headers: { location: { value: CONSOLE_ROOT } } });
    }
    expect(uploaded().has('console/nothing.js')).toBe(false);
    // The bucket policy lets CloudFront read objects, never list them: a missing key is 403 AccessDenied, as locally.
    const [, policy] = Object.entries(resources('AWS::S3::BucketPolicy')).find(([id]) => id.startsWith('ConsoleFiles'))!;
    const actions = (policy.Properties.PolicyDocument.Statement as Json[])
      .filter((s) => s.Effect === 'Allow' && JSON.stringify(s.Principal ?? {}).includes('cloudfront'))
      .flatMap((s) => [s.Action].flat());
    expect(actions).toEqual(['s3:GetObject']);
  });

  it('has the response-headers policy add exactly the security headers the local site sends (the CSP also allowing the sign-in domain)', () => {
    const behavior = resources('AWS::CloudFront::Distribution')[distributionId]!.Properties.DistributionConfig.DefaultCacheBehavior;
    const policyId = behavior.ResponseHeadersPolicyId.Ref as string;
    const written = headersOf(policyId);
    const policy = resources('AWS::CloudFront::ResponseHeadersPolicy')[policyId]!;
    const config = JSON.parse(uploaded().get(`${CONSOLE_KEY_PREFIX}config.json`)!.text) as Extract<ConsoleConfig, { signIn: 'cognito' }>;
    expect(written).toEqual({ ...CONSOLE_SECURITY_HEADERS, 'Content-Security-Policy': consoleCsp([config.authDomain]) });
    expect(Object.keys(policy.Properties.ResponseHeadersPolicyConfig)).not.toContain('CustomHeadersConfig');
  });
});

describe('the API reference as the stack serves it (dev)', () => {
  it('serves /docs/ from the console bucket through the same function, with its own headers policy, and uploads exactly the local reference objects', () => {
    const config = resources('AWS::CloudFront::Distribution')[distributionId]!.Properties.DistributionConfig;
    const behavior = (config.CacheBehaviors as Json[]).find((b) => b.PathPattern === REFERENCE_PATH_PATTERN)!;
    expect(behavior.TargetOriginId).toBe(config.DefaultCacheBehavior.TargetOriginId);
    expect(behavior.FunctionAssociations).toEqual(config.DefaultCacheBehavior.FunctionAssociations);
    expect(behavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    // GET and HEAD only, as the console's files.
    expect(behavior.AllowedMethods ?? ['GET', 'HEAD']).toEqual(['GET', 'HEAD']);
    expect(headersOf(behavior.ResponseHeadersPolicyId.Ref)).toEqual(REFERENCE_SECURITY_HEADERS);

    // The URL a reader types, and every file the page loads or fetches, are objects the deployment uploads.
    const objects = uploadedUnder(REFERENCE_KEY_PREFIX);
    const pageUrl = `https://${DISTRIBUTION_DOMAIN}${REFERENCE_ROOT}`;
    expect(keyOf(pageUrl)).toBe(`${REFERENCE_KEY_PREFIX}index.html`);
    const html = objects.get(keyOf(pageUrl))!.text;
    const referenced = [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => keyOf(new URL(m[1]!, pageUrl).href));
    const init = objects.get(`${REFERENCE_KEY_PREFIX}reference.js`)!.text;
    referenced.push(...[...init.matchAll(/"url":"([^"]+)"/g)].map((m) => keyOf(new URL(m[1]!, pageUrl).href)));
    expect(new Set([keyOf(pageUrl), ...referenced])).toEqual(new Set(objects.keys()));

    // The local list, but for the server URL: the API's own domain, resolved at deploy time.
    const document = JSON.parse(objects.get(`${REFERENCE_KEY_PREFIX}openapi.json`)!.text) as { servers: { url: string }[] };
    const serverUrl = document.servers[0]!.url;
    expect(serverUrl).toMatch(/^https:\/\/<\w*HttpApi\w*>\.execute-api\.<AWS::Region>\.<AWS::URLSuffix>$/);
    const local = referenceObjects(serverUrl);
    expect([...objects.keys()].sort()).toEqual(local.map((o) => o.key).sort());
    for (const o of local) {
      const deployed = objects.get(o.key)!;
      expect({ key: o.key, contentType: deployed.contentType, cacheControl: deployed.cacheControl, text: deployed.text }).toEqual({
        key: o.key,
        contentType: o.contentType,
        cacheControl: o.cacheControl,
        text: o.body,
      });
    }
  });
});

describe('the console routes take access tokens only (dev)', () => {
  it(`requires the ${CONSOLE_TOKEN_SCOPE} scope on the console's one route, which the client allows and the page asks for`, async () => {
    const [authorizerId] = Object.entries(resources('AWS::ApiGatewayV2::Authorizer')).find(
      ([, a]) => a.Properties.AuthorizerType === 'JWT',
    )!;
    const routes = Object.values(resources('AWS::ApiGatewayV2::Route'));
    const consoleRoutes = routes.filter((r) => (String(r.Properties.RouteKey).split(' ')[1] ?? '').startsWith(`${CONSOLE_API_ROOT}/`));
    expect(consoleRoutes.map((r) => r.Properties.RouteKey)).toEqual([`ANY ${CONSOLE_API_ROOT}/{proxy+}`]);
    for (const route of consoleRoutes) {
      expect(route.Properties, route.Properties.RouteKey).toMatchObject({
        AuthorizationType: 'JWT',
        AuthorizerId: { Ref: authorizerId },
        AuthorizationScopes: [CONSOLE_TOKEN_SCOPE],
      });
    }
    // And the JWT authorizer guards nothing else.
    for (const route of routes.filter((r) => !consoleRoutes.includes(r)))
      expect(route.Properties.AuthorizerId).not.toEqual({ Ref: authorizerId });

    const [, client] = Object.entries(resources('AWS::Cognito::UserPoolClient'))[0]!;
    expect(client.Properties.AllowedOAuthScopes).toContain(CONSOLE_TOKEN_SCOPE);
    expect([...client.Properties.AllowedOAuthScopes].sort()).toEqual([...CONSOLE_CLIENT_SCOPES].sort());
    expect(client.Properties.AllowedOAuthFlows).toEqual(['code']);

    // The page's authorize request (console/src/auth.ts), run with the browser's globals stood in.
    let assigned = '';
    vi.stubGlobal('sessionStorage', { setItem: () => undefined });
    vi.stubGlobal('location', { assign: (url: string) => (assigned = url) });
    try {
      // Not a literal import: the file is typed for the browser (console/tsconfig.json), not for this project's Node types.
      const page = '#console/auth';
      const { startSignIn } = (await import(page)) as { startSignIn: (config: ConsoleConfig) => Promise<void> };
      await startSignIn({
        apiBase: `${CONSOLE_API_ROOT}/v1`,
        signIn: 'cognito',
        authDomain: 'https://auth.example.test',
        clientId: 'client',
        redirectUri: `https://${DISTRIBUTION_DOMAIN}${CONSOLE_ROOT}`,
      });
    } finally {
      vi.unstubAllGlobals();
    }
    const requested = new URL(assigned).searchParams.get('scope')!.split(' ');
    expect(requested).toContain(CONSOLE_TOKEN_SCOPE);
    for (const scope of requested) expect(client.Properties.AllowedOAuthScopes).toContain(scope);
  });

  it("refuses a Cognito ID token and accepts its access token, by API Gateway's documented scope check", () => {
    // https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-jwt-authorizer.html: with scopes on a
    // route, the token's `scope` (or `scp`) claim must hold at least one of them.
    const [route] = Object.values(resources('AWS::ApiGatewayV2::Route')).filter((r) =>
      String(r.Properties.RouteKey).includes(`${CONSOLE_API_ROOT}/`),
    );
    const passes = (claims: Json) => {
      const granted = String(claims.scope ?? claims.scp ?? '').split(' ');
      return (route!.Properties.AuthorizationScopes as string[]).some((s) => granted.includes(s));
    };
    // The claims Cognito puts in each token of the code flow with `openid email`.
    const idToken = { token_use: 'id', aud: 'client', 'cognito:groups': ['admins'], email: 'alice@example.com' };
    const accessToken = { token_use: 'access', client_id: 'client', 'cognito:groups': ['admins'], scope: CONSOLE_CLIENT_SCOPES.join(' ') };
    expect(passes(idToken)).toBe(false);
    expect(passes(accessToken)).toBe(true);
  });
});
