import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type {
  EarlierTableLogicalName,
  IndexDefinition,
  TableDefinition,
  TableLogicalName,
} from '../shared/store/table-definitions.ts';

/**
 * The construct id of each table, from which CDK derives its logical id in the template. CloudFormation knows a
 * table by its logical id: give a table another one, or another key, and CloudFormation creates a new table and
 * deletes the old one with its data (or, where retained, leaves it behind, unread). So an id never changes once a
 * stage is deployed. The earlier layout's records table keeps the id it was deployed under (`UsageTable`); the
 * current records table, keyed differently, has an id of its own, so an upgrade adds it beside the earlier one.
 */
export const tableConstructIds: Readonly<Record<TableLogicalName | EarlierTableLogicalName, string>> = {
  control: 'ControlTable',
  usage: 'RecordsTable',
  rollups: 'RollupsTable',
  legacyUsage: 'LegacyUsageTable',
  earlierUsage: 'UsageTable',
};

/**
 * Declares one table from its shared definition, so AWS runs on the keys and indexes the local host creates.
 * Every key attribute is declared a string because the definitions name no types: the store must write key and
 * index attributes (such as `startedAt`) as strings, or DynamoDB rejects the item.
 */
export function createGatewayTable(scope: Construct, definition: TableDefinition, production: boolean): Table {
  // The earlier layout's records are a stage's only copy of its usage history until the migration has carried them:
  // retained on every stage, whatever happens to the stack, until a team deletes the table itself (docs/store.md).
  const retained = production || definition.logicalName === 'earlierUsage';
  const table = new Table(scope, tableConstructIds[definition.logicalName], {
    partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
    sortKey: definition.sortKey ? { name: definition.sortKey, type: AttributeType.STRING } : undefined,
    // Traffic follows a few members' bursts; provisioned capacity would throttle exactly the admission write.
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    timeToLiveAttribute: definition.timeToLiveAttribute,
    // Both images: the consumer folds a record only in the change that moved it from running to closed.
    stream: definition.stream === 'NEW_AND_OLD_IMAGES' ? StreamViewType.NEW_AND_OLD_IMAGES : undefined,
    deletionProtection: production,
    // A development stage is torn down with its data; production keeps its tables even if the stack goes. CDK sets
    // the same policy for a replacement (UpdateReplacePolicy) as for a deletion (DeletionPolicy).
    removalPolicy: retained ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
  for (const index of definition.indexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
      sortKey: index.sortKey ? { name: index.sortKey, type: AttributeType.STRING } : undefined,
      projectionType: projectionType(index.projection),
    });
  }
  return table;
}

function projectionType(projection: IndexDefinition['projection']): ProjectionType {
  switch (projection) {
    case 'ALL':
      return ProjectionType.ALL;
    case 'KEYS_ONLY':
      return ProjectionType.KEYS_ONLY;
    default: {
      const unknownProjection: never = projection;
      throw new Error(`unknown projection ${String(unknownProjection)}`);
    }
  }
}
