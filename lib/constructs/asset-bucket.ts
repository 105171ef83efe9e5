import { DefaultStackSynthesizer, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { SPORTS_LOGO_DIR, SPORTS_LOGO_PREFIX } from '#contract/assets';

export type AssetBucketProps = {
  /** Prod keeps the bucket (and the deployment's logs) when the stack goes; dev deletes both, objects included. */
  retain: boolean;
  logRetention: RetentionDays;
};

/**
 * The private bucket the assets function reads public images from, filled at
 * deploy time from the repository folder. Only that function reads it:
 * clients get the images through the API, never from S3.
 */
export class AssetBucket extends Construct {
  readonly bucket: Bucket;
  /** Key prefix of the sports logos; the assets function may read this prefix only. */
  readonly sportsLogoPrefix = SPORTS_LOGO_PREFIX;

  constructor(scope: Construct, id: string, props: AssetBucketProps) {
    super(scope, id);
    const removalPolicy = props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      // The repository is the history: every deploy uploads the folder again, so old versions would only cost.
      versioned: false,
      removalPolicy,
      // The bucket is this construct's alone, so emptying it on delete (dev only) loses nothing the repository lacks.
      autoDeleteObjects: !props.retain,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Only the assets function role reads this bucket and only the deployment writes it; each read follows an API request already in the API Gateway access log, and the objects are public images from the repository.',
    });

    const deployment = new BucketDeployment(this, 'SportsLogos', {
      sources: [Source.asset(SPORTS_LOGO_DIR)],
      destinationBucket: this.bucket,
      destinationKeyPrefix: SPORTS_LOGO_PREFIX,
      // A logo removed from the folder disappears from the API on the next deploy.
      prune: true,
      logGroup: new LogGroup(this, 'DeploymentLogs', { retention: props.logRetention, removalPolicy }),
    });
    acknowledgeDeploymentHandler(deployment, this.bucket, 'The deployment handler copies the logo zip from the CDK staging bucket into the asset bucket with `aws s3 sync`');
  }
}

/**
 * BucketDeployment runs a stack-wide singleton Lambda that aws-cdk-lib owns:
 * its runtime, role and grants are not configurable here, and it runs only
 * while CloudFormation deploys, never on a request.
 */
export function acknowledgeDeploymentHandler(deployment: BucketDeployment, bucket: Bucket, copies: string): void {
  const stack = Stack.of(bucket);
  const bucketId = stack.getLogicalId(bucket.node.defaultChild as CfnBucket);
  const stagingBucket = `arn:<AWS::Partition>:s3:::cdk-${DefaultStackSynthesizer.DEFAULT_QUALIFIER}-assets-<AWS::AccountId>-<AWS::Region>/*`;
  // The role's scope is the singleton function: acknowledging there covers its role, policy and function only.
  Validations.of(deployment.handlerRole.node.scope!).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: "BucketDeployment's handler role: aws-cdk-lib attaches AWSLambdaBasicExecutionRole for its own logs; the role is not replaceable without re-granting what the construct grants.",
    },
    { id: 'AwsSolutions-IAM5[Action::s3:GetObject*]', reason: `${copies}; aws-cdk-lib grants read as GetObject* on both buckets.` },
    { id: 'AwsSolutions-IAM5[Action::s3:GetBucket*]', reason: `${copies}; aws-cdk-lib grants GetBucket* (location, versioning) for the sync.` },
    { id: 'AwsSolutions-IAM5[Action::s3:List*]', reason: `${copies}; sync lists both sides to compare them and to prune.` },
    { id: 'AwsSolutions-IAM5[Action::s3:Abort*]', reason: `${copies}; Abort* lets it cancel its own multipart uploads.` },
    { id: 'AwsSolutions-IAM5[Action::s3:DeleteObject*]', reason: `${copies}; prune deletes files removed from the repository.` },
    { id: `AwsSolutions-IAM5[Resource::${stagingBucket}]`, reason: `${copies}; the asset's object key is only known at deploy time.` },
    { id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`, reason: `${copies}; aws-cdk-lib grants on the whole destination bucket, which holds nothing but these files.` },
    {
      id: 'AwsSolutions-L1',
      reason: "BucketDeployment's handler runtime (Python with the AWS CLI layer) is fixed by aws-cdk-lib and moves with its upgrades; it runs only during deployments.",
    },
  );
}
