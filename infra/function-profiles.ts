import { Duration } from 'aws-cdk-lib';
import type { FunctionId } from '../shared/http/route-table.ts';

/** What a function may touch; the stack turns each kind into grants. */
export type FunctionAccess =
  | 'inference'
  | 'token-count'
  | 'catalog'
  | 'admin'
  | 'usage-read'
  | 'reaper'
  | 'alert-delivery'
  | 'earlier-migration'
  | 'rollup-fold';

export interface FunctionProfile {
  readonly access: FunctionAccess;
  readonly memorySize: number;
  readonly timeout: Duration;
  /**
   * Reserved concurrency: `'deployment'` takes the deployment's `reservedConcurrency` (a context setting), a number
   * is this function's own smaller share, never above that setting. A reservation is also a ceiling, so a flood
   * of requests (or of guessed keys) cannot take the account's whole concurrency, nor starve the other functions.
   */
  readonly reservedConcurrency: 'deployment' | number;
}

/** A profile's reserved concurrency under a deployment's setting. */
export function reservedConcurrencyOf(profile: FunctionProfile, deploymentSetting: number): number {
  return profile.reservedConcurrency === 'deployment'
    ? deploymentSetting
    : Math.min(profile.reservedConcurrency, deploymentSetting);
}

/**
 * Sizing and access per function. Keyed by every `FunctionId`, so a function added to the route table does not
 * type-check until it states what it may touch.
 */
export const functionProfiles: Readonly<Record<FunctionId, FunctionProfile>> = {
  // A streamed answer can run for many minutes; the upstream time-out, not the function's, should end it.
  // Each open stream holds one execution for its whole length, so inference reserves the most.
  'chat-completions': inference(),
  responses: inference(),
  messages: inference(),
  'generate-content': inference(),
  // A token count is one short upstream call: it reads keys, connections and provider credentials, writes nothing.
  'count-tokens': { access: 'token-count', memorySize: 512, timeout: Duration.minutes(1), reservedConcurrency: 10 },
  // Also answers every path no route serves (the distribution's default behaviour).
  models: { access: 'catalog', memorySize: 256, timeout: Duration.seconds(10), reservedConcurrency: 10 },
  admin: { access: 'admin', memorySize: 512, timeout: Duration.seconds(30), reservedConcurrency: 5 },
  // A CSV export of a long period pages through many usage records.
  usage: { access: 'usage-read', memorySize: 512, timeout: Duration.minutes(2), reservedConcurrency: 10 },
};

function inference(): FunctionProfile {
  return { access: 'inference', memorySize: 1024, timeout: Duration.minutes(15), reservedConcurrency: 'deployment' };
}
