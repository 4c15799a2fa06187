import type { GatewayConfig } from '../../config/gateway-config.ts';
import { createDynamoStore, type DynamoStore } from './dynamo-store.ts';

/** The DynamoDB engine on the tables and endpoint the configuration names: what the stack's functions run on. */
export function dynamoStoreFromConfig(config: GatewayConfig): DynamoStore {
  if (!config.tables)
    throw new Error('the dynamodb engine needs GATEWAY_TABLE_CONTROL, _USAGE, _ROLLUPS and _LEGACY_USAGE');
  return createDynamoStore({ region: config.region, endpoint: config.dynamoEndpoint, tableNames: config.tables });
}
