import { CfnOutput } from 'aws-cdk-lib';
import { ApiMapping, DomainName, EndpointType, IpAddressType, SecurityPolicy } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate, CertificateValidation, type ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import { AaaaRecord, ARecord, HostedZone, RecordTarget, type IAliasRecordTarget, type IHostedZone } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayv2DomainProperties } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';
import type { StageConfig } from '../stages.js';
import type { RouteTableApi } from './api.js';

export type PublicDomain = NonNullable<StageConfig['domain']>;

/**
 * The stage's domain as CDK objects, without a single look-up (synth stays offline): the certificate imported by
 * its ARN, or created here and validated through DNS in the hosted zone imported by id and name; the zone when one
 * is given. `stageConfig` has checked the combinations (a certificate or a zone; a CloudFront certificate in
 * us-east-1; the zone holds the name).
 */
export function publicDomain(scope: Construct, domain: PublicDomain): { certificate: ICertificate; zone: IHostedZone | undefined } {
  const zone =
    domain.hostedZoneId && domain.hostedZoneName
      ? HostedZone.fromHostedZoneAttributes(scope, 'Zone', { hostedZoneId: domain.hostedZoneId, zoneName: domain.hostedZoneName })
      : undefined;
  const certificate = domain.certificateArn
    ? Certificate.fromCertificateArn(scope, 'Certificate', domain.certificateArn)
    : new Certificate(scope, 'Certificate', { domainName: domain.name, validation: CertificateValidation.fromDns(zone) });
  return { certificate, zone };
}

/** The name's alias records in its zone, IPv4 and IPv6, both pointing at `target`. */
export function aliasRecords(scope: Construct, zone: IHostedZone, name: string, target: IAliasRecordTarget): void {
  const props = { zone, recordName: name, target: RecordTarget.fromAlias(target) };
  new ARecord(scope, 'AliasA', props);
  new AaaaRecord(scope, 'AliasAaaa', props);
}

export type ApiDomainProps = { api: RouteTableApi; domain: PublicDomain };

/**
 * The stage's domain straight on the HTTP API, for a stage without an edge: a regional API Gateway custom domain
 * (TLS 1.2, IPv4 and IPv6) mapped to the `$default` stage, so paths stay as the route table writes them, and, with
 * a hosted zone, its alias records. Without a zone, whoever owns the DNS points the name at `DomainDnsTarget`.
 */
export class ApiDomain extends Construct {
  readonly domainName: DomainName;

  constructor(scope: Construct, id: string, props: ApiDomainProps) {
    super(scope, id);
    const { certificate, zone } = publicDomain(this, props.domain);
    this.domainName = new DomainName(this, 'DomainName', {
      domainName: props.domain.name,
      certificate,
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
      // A dualstack domain may front an IPv4 API: https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-custom-domain-names-ip-address-type.html
      ipAddressType: IpAddressType.DUAL_STACK,
    });
    new ApiMapping(this, 'Mapping', { api: props.api.httpApi, domainName: this.domainName, stage: props.api.stage });
    if (zone)
      aliasRecords(
        this,
        zone,
        props.domain.name,
        new ApiGatewayv2DomainProperties(this.domainName.regionalDomainName, this.domainName.regionalHostedZoneId),
      );
    else
      new CfnOutput(this, 'DomainDnsTarget', {
        key: 'DomainDnsTarget',
        value: this.domainName.regionalDomainName,
        description: `Point ${props.domain.name} here (CNAME or alias)`,
      });
  }
}
