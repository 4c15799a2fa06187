import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnResource, type Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { GatewayStack } from '../../infra/gateway-stack.ts';
import { scheduledFunctionIds } from '../../infra/scheduled-functions.ts';
import { writeUsagePage } from '../../infra/usage-page-build.ts';
import { type FunctionId, functionIds, routeTable, staticRoutes } from '../../shared/http/route-table.ts';
import { tableDefinitions, tableEnvironmentVariable } from '../../shared/store/table-definitions.ts';

const synthesisTimeoutMs = 60_000;
const stage = 'test';

let app: App;
let stack: GatewayStack;
let template: Template;
let usagePageDirectory: string;

beforeAll(async () => {
  usagePageDirectory = await mkdtemp(join(tmpdir(), 'usage-page-'));
  await writeUsagePage(usagePageDirectory);
  // The templates are what these tests read; test/infra/cdk-synth.test.ts checks the esbuild bundles.
  app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  stack = new GatewayStack(app, `ModelGateway-${stage}`, {
    stage,
    production: false,
    staticSiteSources: { 'usage-page': usagePageDirectory },
  });
  template = Template.fromStack(stack);
}, synthesisTimeoutMs);

interface PolicyStatementJson {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

function logicalIdOf(owner: Stack, resource: CfnResource): string {
  return owner.getLogicalId(resource);
}

function functionLogicalId(functionId: FunctionId): string {
  const gatewayFunction = stack.functions.get(functionId);
  if (!gatewayFunction) throw new Error(`no function ${functionId}`);
  return logicalIdOf(stack, gatewayFunction.function.node.defaultChild as CfnResource);
}

function tableLogicalId(owner: GatewayStack, name: (typeof tableDefinitions)[number]['logicalName']): string {
  const table = owner.tables.get(name);
  if (!table) throw new Error(`no table ${name}`);
  return logicalIdOf(owner, table.node.defaultChild as CfnResource);
}

/** Every statement of the policies attached to a function's role. */
function statementsOf(functionId: FunctionId): PolicyStatementJson[] {
  const role = stack.functions.get(functionId)?.function.role;
  if (!role) throw new Error(`no role for ${functionId}`);
  const roleId = logicalIdOf(stack, role.node.defaultChild as CfnResource);
  const policies = template.findResources('AWS::IAM::Policy', {
    Properties: { Roles: Match.arrayWith([{ Ref: roleId }]) },
  });
  return Object.values(policies).flatMap(
    (policy) =>
      (policy as { Properties: { PolicyDocument: { Statement: PolicyStatementJson[] } } }).Properties.PolicyDocument
        .Statement,
  );
}

function actionsOf(statement: PolicyStatementJson): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

function tableStatementsOf(functionId: FunctionId): PolicyStatementJson[] {
  return statementsOf(functionId).filter((statement) =>
    actionsOf(statement).some((action) => action.startsWith('dynamodb:')),
  );
}

function writeActionsIn(statement: PolicyStatementJson): string[] {
  return actionsOf(statement).filter((action) =>
    /^dynamodb:(Put|Update|Delete|BatchWrite|PartiQL(Insert|Update|Delete)|\*)/.test(action),
  );
}

function secretActionsOf(functionId: FunctionId): string[] {
  return statementsOf(functionId)
    .flatMap(actionsOf)
    .filter((action) => action.startsWith('secretsmanager:'));
}

function functionProperties(functionId: FunctionId): Record<string, unknown> {
  const resource = template.toJSON()['Resources'][functionLogicalId(functionId)] as {
    Properties: Record<string, unknown>;
  };
  return resource.Properties;
}

/** CloudFront matches `*` against any characters, slashes included. */
function matchesPathPattern(pattern: string, path: string): boolean {
  const expression = pattern
    .split('*')
    .map((part) => part.replace(/[.?+^$()[\]{}|\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${expression}$`).test(path);
}

/** The tables of gateway requests; the table of 0.1 records is not one of them. */
const gatewayTableNames = tableDefinitions
  .map((definition) => definition.logicalName)
  .filter((name) => name !== 'legacyUsage');

describe('GatewayStack', () => {
  describe('functions', () => {
    it.each(functionIds)('%s has a streaming function URL without IAM auth and an output', (functionId) => {
      const functionUrl = stack.functions.get(functionId)?.functionUrl;
      if (!functionUrl) throw new Error(`${functionId} has no function URL`);
      const urlLogicalId = logicalIdOf(stack, functionUrl.node.defaultChild as CfnResource);
      expect(template.toJSON()['Resources'][urlLogicalId].Properties).toEqual({
        TargetFunctionArn: { 'Fn::GetAtt': [functionLogicalId(functionId), 'Arn'] },
        InvokeMode: 'RESPONSE_STREAM',
        AuthType: 'NONE',
      });
      const outputs = template.findOutputs('*', { Value: { 'Fn::GetAtt': [urlLogicalId, 'FunctionUrl'] } });
      expect(Object.keys(outputs)).toHaveLength(1);
    });

    it.each(functionIds)('%s runs on ARM64 with Node 24, source maps and the gateway environment', (functionId) => {
      const properties = functionProperties(functionId);
      expect(properties['Runtime']).toBe('nodejs24.x');
      expect(properties['Architectures']).toEqual(['arm64']);
      const variables = (properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
      expect(variables['NODE_OPTIONS']).toBe('--enable-source-maps');
      expect(variables['GATEWAY_SECRET_STORE']).toBe('secrets-manager');
      expect(variables['GATEWAY_SECRET_PREFIX']).toBe(`model-gateway/${stage}`);
      for (const definition of tableDefinitions) {
        expect(variables[tableEnvironmentVariable(definition.logicalName)]).toEqual({
          Ref: tableLogicalId(stack, definition.logicalName),
        });
      }
    });

    it('gives streaming inference a long time-out', () => {
      expect(functionProperties('chat-completions')['Timeout']).toBe(900);
    });

    it('keeps logs for a month', () => {
      // Every function, scheduled ones included, and the handler that deploys each static route.
      const logGroups = functionIds.length + scheduledFunctionIds.length + staticRoutes.length;
      template.resourcePropertiesCountIs('AWS::Logs::LogGroup', { RetentionInDays: 30 }, logGroups);
    });
  });

  describe('tables', () => {
    it.each(tableDefinitions)('$logicalName has the keys and indexes of its shared definition', (definition) => {
      const resource = template.toJSON()['Resources'][tableLogicalId(stack, definition.logicalName)] as {
        Properties: Record<string, unknown>;
        DeletionPolicy: string;
      };
      const keySchema = (partitionKey: string, sortKey: string | undefined) => [
        { AttributeName: partitionKey, KeyType: 'HASH' },
        ...(sortKey ? [{ AttributeName: sortKey, KeyType: 'RANGE' }] : []),
      ];
      expect(resource.Properties['KeySchema']).toEqual(keySchema(definition.partitionKey, definition.sortKey));
      const indexes = (resource.Properties['GlobalSecondaryIndexes'] ?? []) as unknown[];
      expect(indexes).toEqual(
        definition.indexes.map((index) => ({
          IndexName: index.name,
          KeySchema: keySchema(index.partitionKey, index.sortKey),
          Projection: { ProjectionType: index.projection },
        })),
      );
      expect(resource.Properties['BillingMode']).toBe('PAY_PER_REQUEST');
      expect(resource.Properties['PointInTimeRecoverySpecification']).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(resource.Properties['TimeToLiveSpecification']).toEqual(
        definition.timeToLiveAttribute ? { AttributeName: definition.timeToLiveAttribute, Enabled: true } : undefined,
      );
      expect(resource.Properties['TableName']).toBeUndefined();
      expect(resource.Properties['DeletionProtectionEnabled']).toBe(false);
      expect(resource.DeletionPolicy).toBe('Delete');
    });

    it('declares no other tables', () => {
      template.resourceCountIs('AWS::DynamoDB::Table', tableDefinitions.length);
    });
  });

  describe('permissions', () => {
    it('lets the admin function alone create secrets, under the stage prefix', () => {
      for (const functionId of functionIds) {
        const creating = statementsOf(functionId).filter((statement) =>
          actionsOf(statement).includes('secretsmanager:CreateSecret'),
        );
        if (functionId === 'admin') {
          expect(creating).toHaveLength(1);
          expect(JSON.stringify(creating[0]?.Resource)).toContain(`:secret:model-gateway/${stage}/*`);
        } else {
          expect(creating).toEqual([]);
        }
      }
    });

    it('lets inference read provider credentials under the stage prefix, and no other secrets', () => {
      const reading = statementsOf('chat-completions').filter((statement) =>
        actionsOf(statement).some((action) => action.startsWith('secretsmanager:')),
      );
      expect(reading.map(actionsOf)).toEqual([['secretsmanager:GetSecretValue']]);
      expect(JSON.stringify(reading[0]?.Resource)).toContain(`:secret:model-gateway/${stage}/*`);
    });

    it('lets the models function read the control table and write nothing', () => {
      const tableStatements = tableStatementsOf('models');
      expect(tableStatements.length).toBeGreaterThan(0);
      for (const statement of tableStatements) {
        expect(writeActionsIn(statement)).toEqual([]);
        const resources = JSON.stringify(statement.Resource);
        expect(resources).toContain(tableLogicalId(stack, 'control'));
        expect(resources).not.toContain(tableLogicalId(stack, 'usage'));
        expect(resources).not.toContain(tableLogicalId(stack, 'rollups'));
      }
      expect(secretActionsOf('models')).toEqual([]);
    });

    it('lets the usage function read every gateway table and write nothing', () => {
      const tableStatements = tableStatementsOf('usage');
      for (const statement of tableStatements) expect(writeActionsIn(statement)).toEqual([]);
      const resources = JSON.stringify(tableStatements.map((statement) => statement.Resource));
      for (const name of gatewayTableNames) expect(resources).toContain(tableLogicalId(stack, name));
      expect(secretActionsOf('usage')).toEqual([]);
    });

    it('lets inference write every gateway table', () => {
      const resources = JSON.stringify(
        statementsOf('chat-completions').filter((statement) => actionsOf(statement).includes('dynamodb:UpdateItem')),
      );
      for (const name of gatewayTableNames) expect(resources).toContain(tableLogicalId(stack, name));
    });

    // The 0.1 records are kept apart (spec §9): a function that cannot read them cannot count them in totals.
    it('lets the admin function alone touch the table of 0.1 usage records, and write it', () => {
      const legacyTable = tableLogicalId(stack, 'legacyUsage');
      for (const functionId of functionIds) {
        const touching = tableStatementsOf(functionId).filter((statement) =>
          JSON.stringify(statement.Resource).includes(legacyTable),
        );
        if (functionId === 'admin') expect(touching.flatMap(actionsOf)).toContain('dynamodb:PutItem');
        else expect(touching).toEqual([]);
      }
    });
  });

  describe('CloudFront path patterns', () => {
    it.each(routeTable)('$id reaches its own function, with an upstream prefix where allowed', (route) => {
      const path = route.match === 'prefix' ? `${route.path}members` : route.path;
      const reaching = (candidate: string) =>
        stack.origins
          .filter((origin) => origin.pathPatterns.some((pattern) => matchesPathPattern(pattern, candidate)))
          .map((origin) => origin.functionId);
      expect(reaching(path)).toContain(route.functionId);
      if (route.upstreamPrefixable) expect(reaching(`/lb${path}`)).toContain(route.functionId);
      else expect(reaching(`/lb${path}`)).not.toContain(route.functionId);
    });
  });
});

describe('GatewayStack in production', () => {
  it('protects and retains its tables', () => {
    // Bundling adds nothing to what this checks, so it is skipped for this stack.
    const productionApp = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const production = new GatewayStack(productionApp, 'ModelGateway-production', {
      stage: 'production',
      production: true,
      staticSiteSources: { 'usage-page': usagePageDirectory },
    });
    const resources = Template.fromStack(production).toJSON()['Resources'];
    for (const definition of tableDefinitions) {
      const table = resources[tableLogicalId(production, definition.logicalName)];
      expect(table.Properties.DeletionProtectionEnabled).toBe(true);
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.UpdateReplacePolicy).toBe('Retain');
    }
  });
});
