import { type CfnElement, Stack, Token, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { ADMIN_ROOT } from '#contract/admin-routes';

/**
 * The managed policy an operator (a person or a script running `npm run admin -- … --stage S`) is given:
 * the stack's outputs and every admin route (IAM-authorized, so the admin function audits each change). No table
 * access: every command, the loads included, is an admin route (docs/admin.md, "Operator permissions").
 */
export class OperatorPolicy extends Construct {
  readonly policy: ManagedPolicy;

  constructor(scope: Construct, id: string, props: { stageName: string; api: HttpApi }) {
    super(scope, id);
    const stack = Stack.of(this);
    // arn:…:execute-api:region:account:api-id/stage/METHOD/path; the stage is `$default`.
    const routes = `$default/*${ADMIN_ROOT}/*`;
    const adminRoutes = stack.formatArn({ service: 'execute-api', resource: props.api.apiId, resourceName: routes });
    this.policy = new ManagedPolicy(this, 'Policy', {
      description: `Customer API ${props.stageName}: the admin CLI (admin API, stack outputs)`,
      statements: [
        new PolicyStatement({ sid: 'AdminApi', actions: ['execute-api:Invoke'], resources: [adminRoutes] }),
        new PolicyStatement({ sid: 'StackOutputs', actions: ['cloudformation:DescribeStacks'], resources: [stack.stackId] }),
      ],
    });
    // cdk-nag names the finding by the resource as it reads it: a pseudo parameter or the stage's value, the API by its logical id.
    const shown = (value: string, pseudo: string) => (Token.isUnresolved(value) ? `<AWS::${pseudo}>` : value);
    const apiLogicalId = stack.resolve((props.api.node.defaultChild as CfnElement).logicalId) as string;
    const arn = `arn:${shown(stack.partition, 'Partition')}:execute-api:${shown(stack.region, 'Region')}:${shown(stack.account, 'AccountId')}`;
    Validations.of(this.policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${arn}:<${apiLogicalId}>/${routes}]`,
      reason:
        'Every method and path of this API below /admin on its one stage: the admin API is one operator surface, each route IAM-authorized and each change audited by the admin function.',
    });
  }
}
