import type { GatewayConfig } from '../../config/gateway-config.ts';
import type { DynamoStoreOptions } from './dynamo-store.ts';

/** The DynamoDB engine's client and tables as the configuration names them: what the stack's functions run on. */
export function dynamoOptionsFromConfig(config: GatewayConfig): DynamoStoreOptions {
  if (!config.tables) {
    throw new Error('the dynamodb engine needs GATEWAY_TABLE_CONTROL, _USAGE, _ROLLUPS and _LEGACY_USAGE');
  }
  return {
    region: config.region,
    endpoint: config.dynamoEndpoint,
    tableNames: config.tables,
    earlierUsageTable: config.earlierUsageTable,
  };
}
