import type { EarlierRecordsStore } from './store-port.ts';

/**
 * The earlier records of an engine, or a deployment, that has no earlier layout to carry in: complete before it
 * starts. SQLite is one (it imports an earlier data folder whole at its first start, shared/store/upgrade/), and
 * so is a DynamoDB store given no earlier records table.
 */
export const nothingToMigrate: EarlierRecordsStore = {
  progress: async () => completeWithoutHistory,
  migrate: async () => completeWithoutHistory,
};

const completeWithoutHistory = {
  state: 'complete',
  step: 'done',
  startedAt: null,
  completedAt: null,
  waitingUntil: null,
  earlierRunning: 0,
  scannedRecords: 0,
  unreadableRecords: 0,
  carriedRecords: 0,
  days: 0,
  foldedPartitions: 0,
  partitionsToFold: 0,
  foldedRecords: 0,
  foldedDied: 0,
} as const;
