import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { IndexDefinition, TableDefinition } from '../shared/store/table-definitions.ts';
import { pascalCase } from './pascal-case.ts';

/**
 * Declares one table from its shared definition, so AWS runs on the keys and indexes the local host creates.
 * Every key attribute is declared a string because the definitions name no types: the store must write key and
 * index attributes (such as `startedAt`) as strings, or DynamoDB rejects the item.
 */
export function createGatewayTable(scope: Construct, definition: TableDefinition, production: boolean): Table {
  const table = new Table(scope, `${pascalCase(definition.logicalName)}Table`, {
    partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
    sortKey: definition.sortKey ? { name: definition.sortKey, type: AttributeType.STRING } : undefined,
    // Traffic follows a few members' bursts; provisioned capacity would throttle exactly the admission write.
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    timeToLiveAttribute: definition.timeToLiveAttribute,
    // Both images: the consumer folds a record only in the change that moved it from running to closed.
    stream: definition.stream === 'NEW_AND_OLD_IMAGES' ? StreamViewType.NEW_AND_OLD_IMAGES : undefined,
    deletionProtection: production,
    // A development stage is torn down with its data; production keeps its tables even if the stack goes.
    removalPolicy: production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
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
