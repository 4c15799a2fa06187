import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionPermissions } from '../../infra/function-permissions.ts';
import { functionProfiles } from '../../infra/function-profiles.ts';
import { createGatewayTable } from '../../infra/gateway-table.ts';
import { scheduledFunctionProfiles } from '../../infra/scheduled-functions.ts';
import { earlierUsageTable, tableDefinitions, tableEnvironmentVariable } from '../../shared/store/table-definitions.ts';
import { migrationBudgetMs } from '../../shared/usage/migrate-earlier-records.ts';
import { type SynthesizedStack, synthesizeStack } from './synthesize-stack.ts';
import type { TemplateResources } from './template-queries.ts';

/**
 * What `cdk deploy` of this version does to a stage deployed with the earlier DynamoDB layout. The fixture holds the
 * table resources of the template that layout synthesized (commit 57a57e6, the last before the lean layout, stage
 * `test`, as a development and as a production stage). CloudFormation matches resources by logical id: a resource
 * whose id is gone is deleted (unless its DeletionPolicy retains it), a new id is created, and a table whose key
 * schema changes is replaced (the old one deleted unless its UpdateReplacePolicy retains it). So every table of the
 * earlier template must still be here under its id, with exactly the properties it was deployed with — then the
 * update changes nothing about it — and the records table of the current layout must be a new resource beside it.
 */
const earlierTemplate = JSON.parse(
  readFileSync(new URL('../fixtures/earlier-stack/tables.json', import.meta.url), 'utf8'),
) as Record<'development' | 'production', TemplateResources>;

const earlierRecordsId = 'UsageTable28300137';

let synthesized: SynthesizedStack;

beforeAll(async () => {
  synthesized = await synthesizeStack('test');
}, 60_000);

afterAll(() => synthesized?.cleanup());

/** The tables of a production stage, each built as the stack builds it (no need to synthesize a second stack). */
async function productionTables(): Promise<TemplateResources> {
  const outdir = await mkdtemp(join(tmpdir(), 'production-tables-'));
  try {
    const stack = new Stack(new App({ outdir }), 'ProductionTables');
    for (const definition of [...tableDefinitions, earlierUsageTable]) createGatewayTable(stack, definition, true);
    return Template.fromStack(stack).toJSON()['Resources'] as TemplateResources;
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}

describe('upgrading a stage deployed with the earlier layout', () => {
  it.each(['development', 'production'] as const)(
    'keeps every table of a %s stage under its logical id with the properties it was deployed with',
    async (kind) => {
      const resources = kind === 'development' ? synthesized.resources : await productionTables();
      for (const [logicalId, earlier] of Object.entries(earlierTemplate[kind])) {
        const now = resources[logicalId];
        expect(now?.Type, logicalId).toBe('AWS::DynamoDB::Table');
        // No property changes at all: no replacement, no index added or removed, nothing for CloudFormation to do.
        expect(now?.Properties, logicalId).toEqual(earlier.Properties);
      }
    },
  );

  it.each(['development', 'production'] as const)(
    'retains the earlier records table on a %s stage, whatever later happens to the stack or the table',
    async (kind) => {
      const resources = kind === 'development' ? synthesized.resources : await productionTables();
      const earlierRecords = resources[earlierRecordsId];
      expect(earlierRecords?.Properties['KeySchema']).toEqual([{ AttributeName: 'id', KeyType: 'HASH' }]);
      expect(earlierRecords?.DeletionPolicy).toBe('Retain');
      expect(earlierRecords?.UpdateReplacePolicy).toBe('Retain');
      expect(earlierRecords?.Properties['DeletionProtectionEnabled']).toBe(kind === 'production');
    },
  );

  it('is the table the stack names the earlier records table, and the current records table is a new one', () => {
    const tableId = (name: 'earlierUsage' | 'usage') => {
      const table = synthesized.stack.tables.get(name);
      if (!table) throw new Error(`no ${name} table`);
      return synthesized.logicalIdOf(table);
    };
    expect(tableId('earlierUsage')).toBe(earlierRecordsId);
    const recordsId = tableId('usage');
    expect(Object.keys(earlierTemplate.development)).not.toContain(recordsId);
    const records = synthesized.resources[recordsId];
    expect(records?.Properties['KeySchema']).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(records?.Properties['GlobalSecondaryIndexes']).toBeUndefined();
    expect(records?.Properties['StreamSpecification']).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    // Only the earlier records table is new to the template besides it: no other table of the earlier stage moved.
    const tableIds = Object.entries(synthesized.resources)
      .filter(([, resource]) => resource.Type === 'AWS::DynamoDB::Table')
      .map(([logicalId]) => logicalId);
    expect(tableIds.toSorted()).toEqual([...Object.keys(earlierTemplate.development), recordsId].toSorted());
  });

  it('lets only the migration read the earlier records, and nothing write them', () => {
    const readers = Object.entries(functionPermissions).filter(([, permissions]) => permissions.tables.earlierUsage);
    expect(readers.map(([access]) => access).toSorted()).toEqual(['admin', 'earlier-migration']);
    for (const [, permissions] of readers) {
      expect(permissions.tables.earlierUsage?.toSorted()).toEqual(['dynamodb:Query', 'dynamodb:Scan']);
    }
  });

  it('lets the earlier records table go from the stack once retired, and with it every way to reach it', async () => {
    const retired = await synthesizeStack('test', { earlierRecords: 'retired' });
    try {
      // Out of the template: CloudFormation removes it from the stack and, as it is retained, leaves the table.
      expect(retired.resources[earlierRecordsId]).toBeUndefined();
      for (const [logicalId, earlier] of Object.entries(earlierTemplate.development)) {
        if (logicalId !== earlierRecordsId)
          expect(retired.resources[logicalId]?.Properties).toEqual(earlier.Properties);
      }
      const template = JSON.stringify(retired.resources);
      expect(template).not.toContain('dynamodb:Scan');
      expect(template).not.toContain(tableEnvironmentVariable('earlierUsage'));
      expect(retired.stack.scheduledFunctions.has('migrate-earlier-records')).toBe(false);
      expect(retired.stack.alarms.earlierMigrationFailing).toBeUndefined();
    } finally {
      await retired.cleanup();
    }
    await expect(synthesizeStack('test', { earlierRecords: 'dropped' })).rejects.toThrow(/earlierRecords/);
  }, 60_000);

  it('gives each migration call a budget its function outlives', () => {
    const margin = 10_000;
    expect(functionProfiles.admin.timeout.toMilliseconds()).toBeGreaterThanOrEqual(
      migrationBudgetMs.adminRequest + margin,
    );
    expect(scheduledFunctionProfiles['migrate-earlier-records'].timeout.toMilliseconds()).toBeGreaterThanOrEqual(
      migrationBudgetMs.scheduledPass + margin,
    );
  });
});
