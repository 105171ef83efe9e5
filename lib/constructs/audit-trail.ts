import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { ReadWriteType, Trail } from 'aws-cdk-lib/aws-cloudtrail';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/**
 * The stage's CloudTrail trail (docs/decisions/audit.md, "CloudTrail"): management events only, read and
 * write, of the stage's region and AWS's global services, to a bucket of its own with log file validation.
 * No data events: DynamoDB item writes and Lambda invocations are not recorded here (the admin API's own trail
 * records the admin changes), and each data event would be charged.
 */
export class AuditTrail extends Construct {
  readonly trail: Trail;

  constructor(scope: Construct, id: string, props: { stageName: string; keepDays: number; retain: boolean; removalPolicy: RemovalPolicy }) {
    super(scope, id);
    const bucket = new Bucket(this, 'Logs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      lifecycleRules: [{ expiration: Duration.days(props.keepDays) }],
      removalPolicy: props.removalPolicy,
      autoDeleteObjects: !props.retain,
    });
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        "Only CloudTrail writes this bucket; reads of it are management events of the trail's own account, and server access logs would log CloudTrail's own deliveries.",
    });
    this.trail = new Trail(this, 'Trail', {
      trailName: `customer-api-${props.stageName}`,
      bucket,
      managementEvents: ReadWriteType.ALL,
      includeGlobalServiceEvents: true,
      isMultiRegionTrail: false,
      enableFileValidation: true,
    });
  }
}
