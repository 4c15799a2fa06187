import { Duration } from 'aws-cdk-lib';
import type { TableLogicalName } from '../shared/store/table-definitions.ts';
import type { FunctionProfile } from './function-profiles.ts';
import { type ScheduledFunctionId, scheduledFunctionIds, scheduledFunctionProfiles } from './scheduled-functions.ts';

/**
 * Functions that a table's change stream runs. Like the scheduled ones they have no route: nothing may reach them
 * over HTTP.
 */
export const streamFunctionIds = ['rollup-stream'] as const;
export type StreamFunctionId = (typeof streamFunctionIds)[number];

export interface StreamFunctionProfile extends FunctionProfile {
  /** The table whose stream runs the function. */
  readonly table: TableLogicalName;
  /** At most this many stream records per batch. */
  readonly batchSize: number;
  /** How long Lambda gathers records before it invokes with fewer than a full batch: the usual lateness. */
  readonly maxBatchingWindow: Duration;
  /** Retries of a failing batch (split in two each time) before it goes to the dead-letter queue. */
  readonly retryAttempts: number;
  /** Records older than this are not retried but sent to the dead-letter queue. */
  readonly maxRecordAge: Duration;
}

export const streamFunctionProfiles: Readonly<Record<StreamFunctionId, StreamFunctionProfile>> = {
  // Folds closed records into the rollups (shared/store/dynamodb/dynamo-rollup-stream.ts). One invocation per
  // stream shard at a time (Lambda's default, which the fold's per-shard marks rely on); a batch of 1,000 closings
  // folds into about one write per hour and identity in it.
  'rollup-stream': {
    access: 'rollup-fold',
    memorySize: 256,
    timeout: Duration.minutes(1),
    // Lambda runs at most one invocation per shard; the reservation only caps the account's share.
    reservedConcurrency: 5,
    table: 'usage',
    batchSize: 1_000,
    maxBatchingWindow: Duration.seconds(5),
    retryAttempts: 10,
    maxRecordAge: Duration.hours(6),
  },
};

/** Every function that no route reaches: the scheduled ones and the stream consumers. */
export const backgroundFunctionIds = [...scheduledFunctionIds, ...streamFunctionIds] as const;
export type BackgroundFunctionId = ScheduledFunctionId | StreamFunctionId;
export const backgroundFunctionProfiles: Readonly<Record<BackgroundFunctionId, FunctionProfile>> = {
  ...scheduledFunctionProfiles,
  ...streamFunctionProfiles,
};
