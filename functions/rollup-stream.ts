import middy from '@middy/core';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { parseGatewayConfig } from '../shared/config/gateway-config.ts';
import { foldStreamBatch, recordChangesOf } from '../shared/store/dynamodb/dynamo-rollup-stream.ts';
import { dynamoOptionsFromConfig } from '../shared/store/dynamodb/dynamo-store-from-config.ts';
import { createDocumentClient, type DynamoTables } from '../shared/store/dynamodb/dynamo-tables.ts';

let tables: DynamoTables | undefined;

/**
 * The records table's stream consumer: folds each batch of closed records into the rollups (docs/accounting.md).
 * A failure throws, so Lambda retries the batch, splits it in two and, past its retries, sends it to the dead-letter
 * queue; the fold is safe to repeat on any part of a batch (shared/store/dynamodb/dynamo-rollup-stream.ts).
 */
export const handler = middy<DynamoDBStreamEvent, { folded: number; writes: number }>().handler(async (event) => {
  if (!tables) {
    const options = dynamoOptionsFromConfig(parseGatewayConfig(process.env));
    tables = { client: createDocumentClient(options), names: options.tableNames };
  }
  return foldStreamBatch(tables, recordChangesOf(event.Records));
});
