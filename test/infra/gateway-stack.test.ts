import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayTable } from '../../infra/gateway-table.ts';
import { backgroundFunctionIds } from '../../infra/stream-functions.ts';
import { type FunctionId, functionIds, staticRoutes } from '../../shared/http/route-table.ts';
import { earlierUsageTable, tableDefinitions, tableEnvironmentVariable } from '../../shared/store/table-definitions.ts';
import { type SynthesizedStack, synthesizeStack } from './synthesize-stack.ts';

const stage = 'test';

let synthesized: SynthesizedStack;

beforeAll(async () => {
  synthesized = await synthesizeStack(stage);
}, 60_000);

afterAll(() => synthesized?.cleanup());

function functionLogicalId(functionId: FunctionId): string {
  const gatewayFunction = synthesized.stack.functions.get(functionId);
  if (!gatewayFunction) throw new Error(`no function ${functionId}`);
  return synthesized.logicalIdOf(gatewayFunction.function);
}

/** The tables of the stack: those the gateway runs on, and the earlier layout's records table it keeps. */
const stackTables = [...tableDefinitions, earlierUsageTable];

function tableLogicalId(name: (typeof stackTables)[number]['logicalName']): string {
  const table = synthesized.stack.tables.get(name);
  if (!table) throw new Error(`no table ${name}`);
  return synthesized.logicalIdOf(table);
}

function functionProperties(functionId: FunctionId): Record<string, unknown> {
  return synthesized.resources[functionLogicalId(functionId)]?.Properties ?? {};
}

describe('GatewayStack', () => {
  describe('functions', () => {
    it.each(functionIds)('%s has a streaming function URL without IAM auth, for CloudFront only', (functionId) => {
      const functionUrl = synthesized.stack.functions.get(functionId)?.functionUrl;
      if (!functionUrl) throw new Error(`${functionId} has no function URL`);
      const urlLogicalId = synthesized.logicalIdOf(functionUrl);
      expect(synthesized.resources[urlLogicalId]?.Properties).toEqual({
        TargetFunctionArn: { 'Fn::GetAtt': [functionLogicalId(functionId), 'Arn'] },
        InvokeMode: 'RESPONSE_STREAM',
        AuthType: 'NONE',
      });
      // No output tells anyone the address (test/infra/front-door.test.ts checks every output).
      const outputs = synthesized.template.findOutputs('*', { Value: { 'Fn::GetAtt': [urlLogicalId, 'FunctionUrl'] } });
      expect(Object.keys(outputs)).toEqual([]);
    });

    it.each(functionIds)('%s runs on ARM64 with Node 24, source maps and the gateway environment', (functionId) => {
      const properties = functionProperties(functionId);
      expect(properties['Runtime']).toBe('nodejs24.x');
      expect(properties['Architectures']).toEqual(['arm64']);
      const variables = (properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
      expect(variables['NODE_OPTIONS']).toBe('--enable-source-maps');
      expect(variables['GATEWAY_SECRET_STORE']).toBe('secrets-manager');
      expect(variables['GATEWAY_SECRET_PREFIX']).toBe(`model-gateway/${stage}`);
      expect(variables['GATEWAY_PRIVATE_UPSTREAMS']).toBe('marked-only');
      for (const definition of stackTables) {
        expect(variables[tableEnvironmentVariable(definition.logicalName)]).toEqual({
          Ref: tableLogicalId(definition.logicalName),
        });
      }
    });

    it('gives streaming inference a long time-out', () => {
      expect(functionProperties('chat-completions')['Timeout']).toBe(900);
    });

    it('keeps logs for a month', () => {
      // Every function, scheduled ones included, and the handler that deploys each static route.
      const logGroups = functionIds.length + backgroundFunctionIds.length + staticRoutes.length;
      synthesized.template.resourcePropertiesCountIs('AWS::Logs::LogGroup', { RetentionInDays: 30 }, logGroups);
    });
  });

  describe('tables', () => {
    it.each(stackTables)('$logicalName has the keys and indexes of its shared definition', (definition) => {
      const resource = synthesized.resources[tableLogicalId(definition.logicalName)];
      if (!resource) throw new Error(`no table ${definition.logicalName} in the template`);
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
      // A development stage's tables go with it, but for the earlier records, kept until a team deletes them.
      const kept = definition.logicalName === 'earlierUsage';
      expect(resource.DeletionPolicy).toBe(kept ? 'Retain' : 'Delete');
      expect(resource.UpdateReplacePolicy).toBe(kept ? 'Retain' : 'Delete');
    });

    it('declares no other tables', () => {
      synthesized.template.resourceCountIs('AWS::DynamoDB::Table', stackTables.length);
    });
  });
});

describe('GatewayStack in production', () => {
  it('protects and retains its tables', async () => {
    // The tables alone, each built as the stack builds it: no need to synthesize a second whole stack.
    const outdir = await mkdtemp(join(tmpdir(), 'production-tables-'));
    try {
      const tableStack = new Stack(new App({ outdir }), 'ProductionTables');
      const logicalIds = stackTables.map((definition) =>
        tableStack.getLogicalId(createGatewayTable(tableStack, definition, true).node.defaultChild as CfnResource),
      );
      const resources = Template.fromStack(tableStack).toJSON()['Resources'];
      for (const logicalId of logicalIds) {
        const table = resources[logicalId];
        expect(table.Properties.DeletionProtectionEnabled).toBe(true);
        expect(table.DeletionPolicy).toBe('Retain');
        expect(table.UpdateReplacePolicy).toBe('Retain');
      }
    } finally {
      await rm(outdir, { recursive: true, force: true });
    }
  });
});
