import { createRequestPathDynamoStore } from '../shared/store/dynamodb/dynamo-request-path-store.ts';
import { dynamoOptionsFromConfig } from '../shared/store/dynamodb/dynamo-store-from-config.ts';
import type { OpenStore } from './gateway-runtime.ts';

/** The request path's verbs only: the inference, token-count and model-list functions. */
export const openRequestPathStore: OpenStore = (config) =>
  createRequestPathDynamoStore(dynamoOptionsFromConfig(config));
