import { createDynamoStore } from '../shared/store/dynamodb/dynamo-store.ts';
import { dynamoOptionsFromConfig } from '../shared/store/dynamodb/dynamo-store-from-config.ts';
import type { OpenStore } from './gateway-runtime.ts';

/** Every verb: the admin, usage and reaper functions. */
export const openFullStore: OpenStore = (config) => createDynamoStore(dynamoOptionsFromConfig(config));
