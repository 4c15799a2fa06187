import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FunctionAccess } from '../../infra/function-profiles.ts';
import { functionProfiles } from '../../infra/function-profiles.ts';
import type { GatewayFunction } from '../../infra/gateway-function.ts';
import { scheduledFunctionIds, scheduledFunctionProfiles } from '../../infra/scheduled-functions.ts';
import { functionIds } from '../../shared/http/route-table.ts';
import { type TableLogicalName, tableDefinitions } from '../../shared/store/table-definitions.ts';
import { type SynthesizedStack, synthesizeStack } from './synthesize-stack.ts';
import { actionsOf, type PolicyStatementJson } from './template-queries.ts';

const stage = 'test';
let synthesized: SynthesizedStack;

beforeAll(async () => {
  synthesized = await synthesizeStack(stage);
}, 60_000);

afterAll(() => synthesized?.cleanup());

/** What each kind of function needs, spelled out here independently of the grants in the stack. */
const needs: Readonly<
  Record<FunctionAccess, { read: readonly TableLogicalName[]; write: readonly TableLogicalName[]; secrets: string[] }>
> = {
  // Admission, settlement and rollups write on the request path; provider credentials are read, never written.
  inference: { read: [], write: ['control', 'usage', 'rollups'], secrets: ['secretsmanager:GetSecretValue'] },
  'token-count': { read: ['control'], write: [], secrets: ['secretsmanager:GetSecretValue'] },
  catalog: { read: ['control'], write: [], secrets: [] },
  // Connections carry credentials the admin API stores but cannot read back; it alone imports 0.1 records.
  admin: {
    read: [],
    write: ['control', 'legacyUsage'],
    secrets: [
      'secretsmanager:CreateSecret',
      'secretsmanager:DeleteSecret',
      'secretsmanager:DescribeSecret',
      'secretsmanager:PutSecretValue',
    ],
  },
  'usage-read': { read: ['control', 'usage', 'rollups'], write: [], secrets: [] },
  reaper: { read: [], write: ['control', 'usage', 'rollups'], secrets: [] },
};

const allFunctions = [
  ...functionIds.map((functionId) => ({ functionId, access: functionProfiles[functionId].access })),
  ...scheduledFunctionIds.map((functionId) => ({ functionId, access: scheduledFunctionProfiles[functionId].access })),
];

function gatewayFunction(functionId: string): GatewayFunction {
  const { functions, scheduledFunctions } = synthesized.stack;
  const found = new Map<string, GatewayFunction>([...functions, ...scheduledFunctions]).get(functionId);
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

function tableLogicalId(name: TableLogicalName): string {
  const table = synthesized.stack.tables.get(name);
  if (!table) throw new Error(`no table ${name}`);
  return synthesized.logicalIdOf(table);
}

/** The tables a statement's resources name: each by its ARN, or its ARN followed by `/index/*`. */
function tablesNamedBy(statement: PolicyStatementJson): TableLogicalName[] {
  const resources = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
  return resources.map((resource) => {
    const text = JSON.stringify(resource);
    const name = tableDefinitions.find((definition) => {
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

const writeAction = /^dynamodb:(Put|Update|Delete|BatchWrite|PartiQL(Insert|Update|Delete)|\*)/;

describe('least privilege', () => {
  it.each(allFunctions)(
    '$functionId ($access) can touch exactly the tables, secrets and logs it needs',
    ({ functionId, access }) => {
      const { statements, managed } = policiesOf(functionId);
      // No managed policy: AWSLambdaBasicExecutionRole alone may write to every log group of the account.
      expect(managed).toBeUndefined();
      const need = needs[access];
      const readable = new Set<TableLogicalName>();
      const writable = new Set<TableLogicalName>();
      const secretActions: string[] = [];
      const originCheckActions: string[] = [];
      const originSecretIds = synthesized.stack.originSecrets.secretIds().map((arn) => synthesized.stack.resolve(arn));
      for (const statement of statements) {
        expect(statement.Effect).toBe('Allow');
        const actions = actionsOf(statement);
        const service = new Set(actions.map((action) => action.split(':')[0]));
        expect(service.size).toBe(1);
        if (service.has('dynamodb')) {
          for (const name of tablesNamedBy(statement)) {
            readable.add(name);
            if (actions.some((action) => writeAction.test(action))) writable.add(name);
          }
        } else if (
          service.has('secretsmanager') &&
          JSON.stringify(statement.Resource) === JSON.stringify(originSecretIds)
        ) {
          // The two origin-secret slots, by their exact ARNs: read to check that a request came through CloudFront.
          originCheckActions.push(...actions);
        } else if (service.has('secretsmanager')) {
          secretActions.push(...actions);
          expect(JSON.stringify(statement.Resource)).toMatch(
            new RegExp(`:secret:model-gateway/${stage}/\\*"\\]\\]\\}$`),
          );
        } else if (service.has('logs')) {
          const logGroup = gatewayFunction(functionId).function.logGroup;
          expect(statement.Resource).toEqual({ 'Fn::GetAtt': [synthesized.logicalIdOf(logGroup), 'Arn'] });
          expect(actions.toSorted()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
        } else {
          throw new Error(`${functionId} is granted ${actions.join(', ')}`);
        }
      }
      expect([...writable].toSorted()).toEqual([...need.write].toSorted());
      expect([...readable].toSorted()).toEqual([...new Set([...need.read, ...need.write])].toSorted());
      expect(secretActions.toSorted()).toEqual(need.secrets.toSorted());
      const answersHttp = gatewayFunction(functionId).functionUrl !== undefined;
      expect(originCheckActions).toEqual(answersHttp ? ['secretsmanager:GetSecretValue'] : []);
    },
  );

  it('lets no function but inference and the token count read provider credentials', () => {
    const readers = allFunctions.filter(({ functionId }) =>
      policiesOf(functionId).statements.some(
        (statement) =>
          actionsOf(statement).includes('secretsmanager:GetSecretValue') &&
          JSON.stringify(statement.Resource).includes(`model-gateway/${stage}/`),
      ),
    );
    expect(new Set(readers.map(({ access }) => access))).toEqual(new Set(['inference', 'token-count']));
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
