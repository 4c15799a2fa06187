import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionPermissions } from '../../infra/function-permissions.ts';
import { functionProfiles } from '../../infra/function-profiles.ts';
import type { GatewayFunction } from '../../infra/gateway-function.ts';
import { backgroundFunctionIds, backgroundFunctionProfiles } from '../../infra/stream-functions.ts';
import { functionIds } from '../../shared/http/route-table.ts';
import {
  type EarlierTableLogicalName,
  earlierUsageTable,
  type TableLogicalName,
  tableDefinitions,
} from '../../shared/store/table-definitions.ts';
import { type SynthesizedStack, synthesizeStack } from './synthesize-stack.ts';
import { actionsOf, type PolicyStatementJson } from './template-queries.ts';

const stage = 'test';
let synthesized: SynthesizedStack;

beforeAll(async () => {
  synthesized = await synthesizeStack(stage);
}, 60_000);

afterAll(() => synthesized?.cleanup());

const allFunctions = [
  ...functionIds.map((functionId) => ({ functionId, access: functionProfiles[functionId].access })),
  ...backgroundFunctionIds.map((functionId) => ({ functionId, access: backgroundFunctionProfiles[functionId].access })),
];

function gatewayFunction(functionId: string): GatewayFunction {
  const { functions, scheduledFunctions, streamFunctions } = synthesized.stack;
  const found = new Map<string, GatewayFunction>([...functions, ...scheduledFunctions, ...streamFunctions]).get(
    functionId,
  );
  if (!found) throw new Error(`no function ${functionId}`);
  return found;
}

/** Every statement of every policy attached to a function's role, and the role's managed policies. */
function policiesOf(functionId: string): { statements: PolicyStatementJson[]; managed: unknown } {
  const role = gatewayFunction(functionId).function.role;
  if (!role) throw new Error(`${functionId} has no role`);
  const roleId = synthesized.logicalIdOf(role);
  const statements = Object.values(synthesized.resources)
    .filter(
      (resource) =>
        resource.Type === 'AWS::IAM::Policy' &&
        JSON.stringify(resource.Properties['Roles']) === JSON.stringify([{ Ref: roleId }]),
    )
    .flatMap((resource) => (resource.Properties['PolicyDocument'] as { Statement: PolicyStatementJson[] }).Statement);
  return { statements, managed: synthesized.resources[roleId]?.Properties['ManagedPolicyArns'] };
}

type StackTableName = TableLogicalName | EarlierTableLogicalName;

function tableLogicalId(name: StackTableName): string {
  const table = synthesized.stack.tables.get(name);
  if (!table) throw new Error(`no table ${name}`);
  return synthesized.logicalIdOf(table);
}

/** The tables a statement's resources name: each by its ARN, or its ARN followed by `/index/*`. */
function tablesNamedBy(statement: PolicyStatementJson): StackTableName[] {
  const resources = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
  return resources.map((resource) => {
    const text = JSON.stringify(resource);
    const name = [...tableDefinitions, earlierUsageTable].find((definition) => {
      const id = tableLogicalId(definition.logicalName);
      return (
        text === JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] }) ||
        text === JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [id, 'Arn'] }, '/index/*']] })
      );
    })?.logicalName;
    if (!name) throw new Error(`a DynamoDB statement names something other than a table: ${text}`);
    return name;
  });
}

describe('least privilege', () => {
  it.each(allFunctions)(
    '$functionId ($access) is granted exactly its declared actions, per table and secret, and its own logs',
    ({ functionId, access }) => {
      const { statements, managed } = policiesOf(functionId);
      // No managed policy: AWSLambdaBasicExecutionRole alone may write to every log group of the account.
      expect(managed).toBeUndefined();
      const declared = functionPermissions[access];
      const tableActions = new Map<StackTableName, string[]>();
      const credentialActions: string[] = [];
      const originCheckActions: string[] = [];
      const eventActions: string[] = [];
      const streamActions: string[] = [];
      const deadLetterActions: string[] = [];
      const originSecretIds = synthesized.stack.originSecrets.secretIds().map((arn) => synthesized.stack.resolve(arn));
      const streamArn = declared.stream && { 'Fn::GetAtt': [tableLogicalId(declared.stream), 'StreamArn'] };
      const deadLetters = synthesized.stack.streamConsumers.get(functionId as never)?.deadLetters;
      for (const statement of statements) {
        expect(statement.Effect).toBe('Allow');
        const actions = actionsOf(statement);
        const service = new Set(actions.map((action) => action.split(':')[0]));
        expect(service.size).toBe(1);
        const resource = JSON.stringify(statement.Resource);
        if (service.has('dynamodb') && streamArn && resource === JSON.stringify(streamArn)) {
          // Lambda's poller reads the one stream that runs the function, with the function's role.
          streamActions.push(...actions);
        } else if (service.has('dynamodb') && streamArn && resource === '"*"') {
          // ListStreams names no resource; nothing else may be granted on `*`.
          expect(actions).toEqual(['dynamodb:ListStreams']);
          streamActions.push(...actions);
        } else if (service.has('sqs') && deadLetters) {
          // The batches the consumer gives up on, to its own dead-letter queue only.
          expect(statement.Resource).toEqual({ 'Fn::GetAtt': [synthesized.logicalIdOf(deadLetters), 'Arn'] });
          deadLetterActions.push(...actions);
        } else if (service.has('dynamodb')) {
          const named = tablesNamedBy(statement);
          const [table] = named;
          if (!table) throw new Error('a DynamoDB statement names no table');
          // One table per statement: its ARN, and its indexes exactly when it is queried.
          expect(new Set(named)).toEqual(new Set([table]));
          expect(named.length).toBe(actions.includes('dynamodb:Query') ? 2 : 1);
          tableActions.set(table, [...(tableActions.get(table) ?? []), ...actions]);
        } else if (
          service.has('secretsmanager') &&
          JSON.stringify(statement.Resource) === JSON.stringify(originSecretIds)
        ) {
          // The two origin-secret slots, by their exact ARNs: read to check that a request came through CloudFront.
          originCheckActions.push(...actions);
        } else if (service.has('secretsmanager')) {
          credentialActions.push(...actions);
          expect(JSON.stringify(statement.Resource)).toMatch(
            new RegExp(`:secret:model-gateway/${stage}/\\*"\\]\\]\\}$`),
          );
        } else if (service.has('events')) {
          // The alerts outbox, onto the account's default bus only.
          expect(JSON.stringify(statement.Resource)).toMatch(/:event-bus\/default"\]\]\}$/);
          eventActions.push(...actions);
        } else if (service.has('logs')) {
          const logGroup = gatewayFunction(functionId).function.logGroup;
          expect(statement.Resource).toEqual({ 'Fn::GetAtt': [synthesized.logicalIdOf(logGroup), 'Arn'] });
          expect(actions.toSorted()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
        } else {
          throw new Error(`${functionId} is granted ${actions.join(', ')}`);
        }
      }
      const sortedEntries = (entries: [string, readonly string[]][]) =>
        entries.map(([table, actions]) => [table, [...actions].toSorted()]).toSorted();
      expect(sortedEntries([...tableActions])).toEqual(
        sortedEntries(Object.entries(declared.tables) as [string, readonly string[]][]),
      );
      expect(credentialActions.toSorted()).toEqual([...declared.providerCredentials].toSorted());
      expect(streamActions.toSorted()).toEqual(
        declared.stream
          ? ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams']
          : [],
      );
      expect(deadLetterActions.toSorted()).toEqual(
        declared.stream ? ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'] : [],
      );
      expect(originCheckActions).toEqual(declared.originCheck ? ['secretsmanager:GetSecretValue'] : []);
      expect(eventActions).toEqual(declared.alertEvents ? ['events:PutEvents'] : []);
      // Every function answering HTTP checks the origin secret; the reaper answers none.
      expect(declared.originCheck).toBe(gatewayFunction(functionId).functionUrl !== undefined);
    },
  );

  it('grants no BatchWriteItem or wildcard action to anyone, and DeleteItem to the admin function only', () => {
    for (const { functionId, access } of allFunctions) {
      const actions = policiesOf(functionId).statements.flatMap(actionsOf);
      for (const action of ['dynamodb:BatchWriteItem', 'dynamodb:*', 'secretsmanager:*']) {
        expect(actions, functionId).not.toContain(action);
      }
      if (access !== 'admin') expect(actions, functionId).not.toContain('dynamodb:DeleteItem');
    }
  });

  it('grants Scan on the earlier records table only, to the functions that migrate it', () => {
    const earlierRecords = JSON.stringify({ 'Fn::GetAtt': [tableLogicalId('earlierUsage'), 'Arn'] });
    const scanners = allFunctions.filter(({ functionId }) => {
      const scans = policiesOf(functionId).statements.filter((statement) =>
        actionsOf(statement).includes('dynamodb:Scan'),
      );
      for (const statement of scans) expect(JSON.stringify(statement.Resource)).toContain(earlierRecords);
      return scans.length > 0;
    });
    expect(scanners.map(({ functionId }) => functionId).toSorted()).toEqual(['admin', 'migrate-earlier-records']);
  });

  it('lets no function but inference, the token count and the admin function (connection test) read provider credentials', () => {
    const readers = allFunctions.filter(({ functionId }) =>
      policiesOf(functionId).statements.some(
        (statement) =>
          actionsOf(statement).includes('secretsmanager:GetSecretValue') &&
          JSON.stringify(statement.Resource).includes(`model-gateway/${stage}/`),
      ),
    );
    expect(new Set(readers.map(({ access }) => access))).toEqual(new Set(['inference', 'token-count', 'admin']));
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing that is not acknowledged', () => {
    const report = new AwsSolutionsChecks(synthesized.app).validateScope(synthesized.app);
    const findings = report.violations.map(
      (violation) =>
        `${violation.ruleName} at ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`,
    );
    expect(findings).toEqual([]);
  });

  it('gives every acknowledgement a written reason', () => {
    const acknowledgements: [string, string][] = [];
    for (const construct of synthesized.app.node.findAll()) {
      for (const entry of construct.node.metadata) {
        if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
        acknowledgements.push(...Object.entries(entry.data as Record<string, string>));
      }
    }
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const [id, reason] of acknowledgements) {
      expect(id).toMatch(/AwsSolutions-/);
      expect(reason.length, id).toBeGreaterThan(40);
    }
  });
});
