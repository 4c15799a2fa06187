import { Duration } from 'aws-cdk-lib';
import type { FunctionId } from '../shared/http/route-table.ts';

/** What a function may touch; the stack turns each kind into grants. */
export type FunctionAccess = 'inference' | 'token-count' | 'catalog' | 'admin' | 'usage-read' | 'reaper';

export interface FunctionProfile {
  readonly access: FunctionAccess;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly reservedConcurrentExecutions?: number;
}

/**
 * Sizing and access per function. Keyed by every `FunctionId`, so a function added to the route table does not
 * type-check until it states what it may touch.
 */
export const functionProfiles: Readonly<Record<FunctionId, FunctionProfile>> = {
  // A streamed answer can run for many minutes; the upstream time-out, not the function's, should end it.
  'chat-completions': { access: 'inference', memorySize: 1024, timeout: Duration.minutes(15) },
  responses: { access: 'inference', memorySize: 1024, timeout: Duration.minutes(15) },
  messages: { access: 'inference', memorySize: 1024, timeout: Duration.minutes(15) },
  'generate-content': { access: 'inference', memorySize: 1024, timeout: Duration.minutes(15) },
  // A token count is one short upstream call: it reads keys, connections and provider credentials, writes nothing.
  'count-tokens': { access: 'token-count', memorySize: 512, timeout: Duration.minutes(1) },
  models: { access: 'catalog', memorySize: 256, timeout: Duration.seconds(10) },
  admin: { access: 'admin', memorySize: 512, timeout: Duration.seconds(30) },
  // A CSV export of a long period pages through many usage records.
  usage: { access: 'usage-read', memorySize: 512, timeout: Duration.minutes(2) },
};
