import { type CfnElement, Stack, Token, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { ADMIN_ROOT } from '#contract/admin-routes';
import { TABLE_KEYS } from '#data/table';
import type { DynamoAction } from './service-function.js';

/**
 * What the admin CLI reads and writes (the venue-data loads) until the producer interface replaces the loads:
 * TEMPORARY, then this statement goes (docs/admin.md, "Operator permissions").
 */
export const LOAD_TABLE_ACTIONS = [
  'GetItem',
  'BatchGetItem',
  'Query',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
] as const satisfies readonly DynamoAction[];

/**
 * The managed policy an operator (a person or a script running `npm run admin -- … --stage S`) is given:
 * the stack's outputs, every admin route (IAM-authorized, so the admin function audits each change), and,
 * for now, the table for the venue-data loads.
 */
export class OperatorPolicy extends Construct {
  readonly policy: ManagedPolicy;

  constructor(scope: Construct, id: string, props: { stageName: string; api: HttpApi; table: ITable }) {
    super(scope, id);
    const stack = Stack.of(this);
    // arn:…:execute-api:region:account:api-id/stage/METHOD/path; the stage is `$default`.
    const routes = `$default/*${ADMIN_ROOT}/*`;
    const adminRoutes = stack.formatArn({ service: 'execute-api', resource: props.api.apiId, resourceName: routes });
    this.policy = new ManagedPolicy(this, 'Policy', {
      description: `Customer API ${props.stageName}: the admin CLI (admin API, stack outputs; the venue-data loads for now)`,
      statements: [
        new PolicyStatement({ sid: 'AdminApi', actions: ['execute-api:Invoke'], resources: [adminRoutes] }),
        new PolicyStatement({ sid: 'StackOutputs', actions: ['cloudformation:DescribeStacks'], resources: [stack.stackId] }),
        new PolicyStatement({
          sid: 'VenueDataLoadsTemporary',
          actions: LOAD_TABLE_ACTIONS.map((a) => `dynamodb:${a}`),
          resources: [props.table.tableArn, ...TABLE_KEYS.globalIndexes.map((i) => `${props.table.tableArn}/index/${i.indexName}`)],
        }),
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
