import { DefaultStackSynthesizer, Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  Function as CloudFrontFunction,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  OriginRequestPolicy,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { AccountRecovery, CfnUserPoolGroup, Mfa, OAuthScope, UserPool, UserPoolEmail, type UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { CONSOLE_ADMIN_GROUP, CONSOLE_API_ROOT } from '#contract/admin-routes';
import type { ConsoleConfig } from '#contract/console-config';
import { nagEnvironment } from './service-function.js';
import { senderOf } from '../mail-sender.js';
import {
  CONSOLE_CLIENT_SCOPES,
  CONSOLE_KEY_PREFIX,
  CONSOLE_ROOT,
  CONSOLE_VIEWER_REQUEST_FUNCTION,
  consoleObjects,
  consoleSecurity,
  type ConsoleObject,
  type ConsoleSecurity,
} from '../console-build.js';
import { REFERENCE_KEY_PREFIX, REFERENCE_PATH_PATTERN, referenceObjects, referenceSecurity } from '../reference-build.js';

export type AdminConsoleProps = {
  stageName: string;
  /** The HTTP API's URL: CloudFront sends the console's API calls there, so page and API share one origin. */
  apiUrl: string;
  /** The API's public base URL when the stage has a domain (publicBaseUrlOf), else '': the API reference's server. */
  publicBaseUrl: string;
  /** Keep the pool and the bucket with the stack, and protect the pool from deletion. */
  retain: boolean;
  logRetention: RetentionDays;
  /** Mail administrators through SES from this sender (its domain the verified identity); absent, Cognito's own sender. */
  sesMailFrom?: string;
};

/**
 * The administration console in AWS (docs/decisions/console.md): a Cognito
 * user pool (no self sign-up, an `admins` group) whose tokens API Gateway's
 * JWT authorizer checks on the console's prefix; the page's files in a
 * private bucket read by CloudFront through origin access control; and the
 * prefix served by the same distribution, so page and API share an origin
 * and no CORS is needed. The API reference is served the same way under
 * /docs/ (docs/decisions/api-reference.md).
 */
export class AdminConsole extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;
  readonly distribution: Distribution;

  constructor(scope: Construct, id: string, props: AdminConsoleProps) {
    super(scope, id);
    const removalPolicy = props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    this.userPool = new UserPool(this, 'Users', {
      userPoolName: `customer-api-${props.stageName}-console`,
      // Administrators are created by an administrator (docs/console.md, "In AWS": the first console user).
      selfSignUpEnabled: false,
      signInAliases: { email: true, username: true },
      passwordPolicy: {
        minLength: 14,
        requireDigits: true,
        requireLowercase: true,
        requireUppercase: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      mfa: Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      removalPolicy,
      // A deleted pool takes its administrators and their MFA devices with it; protection makes deletion two steps.
      deletionProtection: props.retain,
      ...(props.sesMailFrom ? { email: sesEmail(props.sesMailFrom, Stack.of(this).region) } : {}),
    });
    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG8',
      reason:
        "Threat protection (the Plus feature plan) is priced per monthly active user; the pool holds a handful of administrators, each created by hand with MFA required, and every change they make is in the admin API's audit trail.",
    });
    new CfnUserPoolGroup(this, 'Admins', {
      userPoolId: this.userPool.userPoolId,
      groupName: CONSOLE_ADMIN_GROUP,
      description: 'May use the administration console',
    });
    const domain = this.userPool.addDomain('SignIn', {
      cognitoDomain: { domainPrefix: `customer-api-${props.stageName}-${Stack.of(this).account}` },
    });

    const bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      removalPolicy,
      autoDeleteObjects: !props.retain,
    });
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Only CloudFront reads this bucket (origin access control) and only the deployment writes it; the files are the console page from the repository.',
    });

    const authOrigin = domain.baseUrl();
    const headers = new ResponseHeadersPolicy(this, 'Headers', {
      securityHeadersBehavior: securityHeadersBehavior(consoleSecurity([authOrigin])),
    });
    // `/console/` → `/console/index.html` before S3 is asked: a default root object would apply to `/` only.
    const indexRewrite = new CloudFrontFunction(this, 'IndexRewrite', {
      comment: `Customer API ${props.stageName} console: a URL ending in / names its index.html`,
      code: FunctionCode.fromInline(CONSOLE_VIEWER_REQUEST_FUNCTION),
      runtime: FunctionRuntime.JS_2_0,
    });
    const apiDomain = Fn.select(2, Fn.split('/', props.apiUrl));
    const files = S3BucketOrigin.withOriginAccessControl(bucket);
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Customer API ${props.stageName} administration console`,
      defaultBehavior: {
        origin: files,
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy: headers,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        functionAssociations: [{ function: indexRewrite, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        // The API reference: the console's bucket and function, with its own headers (its renderer needs inline styles).
        [REFERENCE_PATH_PATTERN]: {
          origin: files,
          viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          responseHeadersPolicy: new ResponseHeadersPolicy(this, 'ReferenceHeaders', {
            securityHeadersBehavior: securityHeadersBehavior(referenceSecurity()),
          }),
          cachePolicy: CachePolicy.CACHING_DISABLED,
          functionAssociations: [{ function: indexRewrite, eventType: FunctionEventType.VIEWER_REQUEST }],
        },
        [`${CONSOLE_API_ROOT}/*`]: {
          origin: new HttpOrigin(apiDomain),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: headers,
        },
      },
    });
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason: 'Administrators sign in from wherever they work; access is decided by Cognito with MFA, not by country.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'Every API call through the distribution needs a Cognito token of the admins group (the JWT authorizer, then the function); the page itself is static.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          "The admin API's calls are in the API Gateway access log and the audit trail; what else passes is a handful of administrators loading static files, not worth a log delivery (standard logging v2 to CloudWatch Logs would need no bucket).",
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          "The console has no domain of its own: it is served on the distribution's *.cloudfront.net name, for which CloudFront sets the security policy TLSv1 whatever MinimumProtocolVersion says (only a custom certificate allows TLSv1.2_2021). Browsers negotiate TLS 1.2 or 1.3 with it; the page is static and every API call needs an admins-group Cognito token.",
      },
    );

    const consoleUrl = `https://${this.distribution.distributionDomainName}${CONSOLE_ROOT}`;
    this.client = this.userPool.addClient('Console', {
      generateSecret: false,
      authFlows: { userSrp: true },
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: CONSOLE_CLIENT_SCOPES.map((scope) => OAuthScope.custom(scope)),
        callbackUrls: [consoleUrl],
        logoutUrls: [consoleUrl],
      },
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.hours(8),
      preventUserExistenceErrors: true,
    });

    const config: ConsoleConfig = {
      apiBase: `${CONSOLE_API_ROOT}/v1`,
      signIn: 'cognito',
      authDomain: authOrigin,
      clientId: this.client.userPoolClientId,
      redirectUri: consoleUrl,
    };
    const logGroup = new LogGroup(this, 'DeploymentLogs', { retention: props.logRetention, removalPolicy });
    // One deployment per site, under its own prefix, which its prune keeps to: no type of its own (lib/console-build.ts,
    // contentTypeOf), the one Cache-Control every object has.
    const deploy = (objects: ConsoleObject[], prefix: string, id: string) => {
      const cacheControl = [...new Set(objects.map((object) => object.cacheControl))];
      if (cacheControl.length !== 1) throw new Error(`${id}: one deployment sets one Cache-Control, not ${cacheControl.join(', ')}`);
      return new BucketDeployment(this, id, {
        sources: objects.map((object) => Source.data(object.name, object.body)),
        destinationBucket: bucket,
        destinationKeyPrefix: prefix,
        cacheControl: [CacheControl.fromString(cacheControl[0]!)],
        // Nothing to invalidate: the distribution caches none of the console (CACHING_DISABLED), so a deploy shows at once.
        prune: true,
        logGroup,
      });
    };
    const deployment = deploy(consoleObjects(config), CONSOLE_KEY_PREFIX, 'DeployConsole');
    // The reference's server: the stage's domain, else the HTTP API's own URL (resolved at deploy time).
    deploy(referenceObjects(props.publicBaseUrl || `https://${apiDomain}`), REFERENCE_KEY_PREFIX, 'DeployReference');
    acknowledgeDeploymentHandler(
      deployment,
      bucket,
      'The deployment handler copies the console files from the CDK staging bucket into the console bucket with `aws s3 sync`',
    );
  }

  get url(): string {
    return `https://${this.distribution.distributionDomainName}${CONSOLE_ROOT}`;
  }
}

/**
 * Cognito's mail through SES (EmailSendingAccount DEVELOPER) from the stage's sender, the identity its verified
 * domain, in the stack's own region (Cognito sends with an identity of the pool's region).
 */
function sesEmail(mailFrom: string, region: string): UserPoolEmail {
  // stageConfig refused any sender without an address.
  const { name, address } = senderOf(mailFrom)!;
  return UserPoolEmail.withSES({
    fromEmail: address,
    ...(name ? { fromName: name } : {}),
    sesVerifiedDomain: address.split('@')[1]!,
    sesRegion: region,
  });
}

/** The response-headers policy's security headers, from the one declaration the local site also sends (lib/console-build.ts). */
function securityHeadersBehavior(s: ConsoleSecurity) {
  return {
    contentSecurityPolicy: { contentSecurityPolicy: s.contentSecurityPolicy, override: true },
    strictTransportSecurity: {
      accessControlMaxAge: Duration.seconds(s.strictTransportSecurity.maxAgeSeconds),
      includeSubdomains: s.strictTransportSecurity.includeSubdomains,
      override: true,
    },
    frameOptions: { frameOption: s.frameOption === 'DENY' ? HeadersFrameOption.DENY : HeadersFrameOption.SAMEORIGIN, override: true },
    contentTypeOptions: { override: true },
    referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
  };
}

/**
 * BucketDeployment runs a stack-wide singleton Lambda that aws-cdk-lib owns:
 * its runtime, role and grants are not configurable here, and it runs only
 * while CloudFormation deploys, never on a request.
 */
function acknowledgeDeploymentHandler(deployment: BucketDeployment, bucket: Bucket, copies: string): void {
  const stack = Stack.of(bucket);
  const bucketId = stack.getLogicalId(bucket.node.defaultChild as CfnBucket);
  const { partition, region, account } = nagEnvironment(bucket);
  const stagingBucket = `arn:${partition}:s3:::cdk-${DefaultStackSynthesizer.DEFAULT_QUALIFIER}-assets-${account}-${region}/*`;
  // The role's scope is the singleton function: acknowledging there covers its role, policy and function only.
  Validations.of(deployment.handlerRole.node.scope!).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason:
        "BucketDeployment's handler role: aws-cdk-lib attaches AWSLambdaBasicExecutionRole for its own logs; the role is not replaceable without re-granting what the construct grants.",
    },
    { id: 'AwsSolutions-IAM5[Action::s3:GetObject*]', reason: `${copies}; aws-cdk-lib grants read as GetObject* on both buckets.` },
    {
      id: 'AwsSolutions-IAM5[Action::s3:GetBucket*]',
      reason: `${copies}; aws-cdk-lib grants GetBucket* (location, versioning) for the sync.`,
    },
    { id: 'AwsSolutions-IAM5[Action::s3:List*]', reason: `${copies}; sync lists both sides to compare them and to prune.` },
    { id: 'AwsSolutions-IAM5[Action::s3:Abort*]', reason: `${copies}; Abort* lets it cancel its own multipart uploads.` },
    { id: 'AwsSolutions-IAM5[Action::s3:DeleteObject*]', reason: `${copies}; prune deletes files removed from the repository.` },
    { id: `AwsSolutions-IAM5[Resource::${stagingBucket}]`, reason: `${copies}; the asset's object key is only known at deploy time.` },
    {
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`,
      reason: `${copies}; aws-cdk-lib grants on the whole destination bucket, which holds nothing but these files.`,
    },
    {
      id: 'AwsSolutions-L1',
      reason:
        "BucketDeployment's handler runtime (Python with the AWS CLI layer) is fixed by aws-cdk-lib and moves with its upgrades; it runs only during deployments.",
    },
  );
}
