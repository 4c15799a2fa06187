import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import type { EarlierRecordsMigration } from '../shared/store/store-port.ts';
import { migrateEarlierRecords, migrationBudgetMs } from '../shared/usage/migrate-earlier-records.ts';
import { openFullStore } from './full-store.ts';
import { servicesFromEnvironment } from './gateway-runtime.ts';

/**
 * The migration of the earlier DynamoDB layout's usage history on its EventBridge schedule: a bounded pass every
 * five minutes until it completes (after that, one read a pass). A failed pass throws, so Lambda counts an error;
 * the next pass resumes where the last finished step left it.
 */
export const handler = middy<ScheduledEvent, EarlierRecordsMigration>().handler(async () =>
  migrateEarlierRecords(servicesFromEnvironment(openFullStore), migrationBudgetMs.scheduledPass),
);
