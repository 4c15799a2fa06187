import { Duration } from 'aws-cdk-lib';
import type { FunctionProfile } from './function-profiles.ts';

/**
 * Functions that EventBridge runs on a schedule. They have no route, so they live apart from the route table's
 * `functionIds`: nothing may reach them over HTTP.
 */
export const scheduledFunctionIds = ['reaper', 'deliver-alerts', 'migrate-earlier-records'] as const;
export type ScheduledFunctionId = (typeof scheduledFunctionIds)[number];

export interface ScheduledFunctionProfile extends FunctionProfile {
  /** How often EventBridge runs the function. */
  readonly every: Duration;
}

export const scheduledFunctionProfiles: Readonly<Record<ScheduledFunctionId, ScheduledFunctionProfile>> = {
  // A dead request's lease outlives twice the upstream time-out, so it holds its reservation for many minutes
  // anyway; a pass every five minutes adds little to that and reads every member's item a fifth as often as
  // one a minute would. Settlement is once-only, so overlapping passes would be harmless, but one at a time is
  // all a schedule needs.
  reaper: {
    access: 'reaper',
    memorySize: 256,
    timeout: Duration.minutes(2),
    reservedConcurrency: 1,
    every: Duration.minutes(5),
  },
  // The alerts outbox onto EventBridge (shared/alerts/): a minute at most between an allowance crossing and its
  // event, and keys about to expire announced (the notifier looks at most once an hour per warm instance).
  'deliver-alerts': {
    access: 'alert-delivery',
    memorySize: 256,
    timeout: Duration.minutes(1),
    reservedConcurrency: 1,
    every: Duration.minutes(1),
  },
  // Carries the usage history of the earlier DynamoDB layout into the current one after an upgrade, a bounded pass
  // at a time (shared/usage/migrate-earlier-records.ts, `migrationBudgetMs.scheduledPass`, well inside the
  // time-out), until it completes; then each pass reads one item and ends. One pass at a time: overlapping ones
  // would be harmless (every step is conditional) but only repeat each other's work.
  'migrate-earlier-records': {
    access: 'earlier-migration',
    memorySize: 512,
    timeout: Duration.minutes(2),
    reservedConcurrency: 1,
    every: Duration.minutes(5),
  },
};
