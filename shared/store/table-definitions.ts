/**
 * The tables, described once: the local host creates them in its embedded store and the CDK stack declares
 * them, so both hosts run on the same keys and indexes. Physical names are never hard-coded: the stack passes
 * them to functions and the local host picks its own.
 */
export interface IndexDefinition {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey?: string;
  readonly projection: 'ALL' | 'KEYS_ONLY';
}

/** The tables the gateway runs on. */
export type TableLogicalName = 'control' | 'usage' | 'rollups' | 'legacyUsage';
/** Tables an upgrade reads from and nothing else writes: the records table of the layout before this one. */
export type EarlierTableLogicalName = 'earlierUsage';

export interface TableDefinition<Name extends string = TableLogicalName | EarlierTableLogicalName> {
  readonly logicalName: Name;
  readonly partitionKey: string;
  readonly sortKey?: string;
  readonly indexes: readonly IndexDefinition[];
  /** Attribute holding an epoch-seconds expiry, where records expire. */
  readonly timeToLiveAttribute?: string;
  /** The change stream the table feeds, where something folds its changes (the rollups fold closed records). */
  readonly stream?: 'NEW_AND_OLD_IMAGES';
}

/** Members, keys, key-secret lookups and connections; one item per member carries all admission state. */
export const controlTable: TableDefinition<TableLogicalName> = {
  logicalName: 'control',
  partitionKey: 'pk',
  // KEYS_ONLY: admission rewrites member items constantly and must not replicate that churn into the index.
  indexes: [{ name: 'kind-index', partitionKey: 'kind', sortKey: 'id', projection: 'KEYS_ONLY' }],
};

/**
 * One record per admitted request: metadata only, never a prompt or an answer. Keyed by UTC day and shard
 * (`YYYY-MM-DD#NN`, see dynamodb/partition-keys.ts) and `startedAt#id`, so every time-range read is a Query on the
 * table itself: no index, so a record costs no index writes. Its stream feeds the rollups (closed records folded in
 * batches, off the request path).
 */
export const usageTable: TableDefinition<TableLogicalName> = {
  logicalName: 'usage',
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [],
  stream: 'NEW_AND_OLD_IMAGES',
};

/** Hourly and daily counters per member, key, upstream, provider and model, read by the usage view. */
export const rollupsTable: TableDefinition<TableLogicalName> = {
  logicalName: 'rollups',
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [],
};

/**
 * Usage records of the earlier engine generation (0.1), imported by the admin CLI. A table of their own (spec §9)
 * so that nothing that reads gateway records or rollups can count them; the id is a hash of the record's content,
 * which makes importing the same file twice a no-op.
 */
export const legacyUsageTable: TableDefinition<TableLogicalName> = {
  logicalName: 'legacyUsage',
  partitionKey: 'id',
  indexes: [],
};

export const tableDefinitions = [controlTable, usageTable, rollupsTable, legacyUsageTable] as const;

/**
 * The records table of the earlier layout (before records were keyed by day and shard): one item per request keyed
 * by its id, found by member or by day through two indexes. A stage deployed with that layout keeps it, unchanged and
 * retained, so that upgrading replaces and deletes nothing; the gateway only reads it, to carry its records into the
 * current layout (`usage migrate-earlier-records`, shared/store/dynamodb/earlier-records-migration.ts). Its keys and
 * indexes must stay exactly as that layout declared them: CloudFormation replaces a table whose key changes, and
 * cannot add and remove indexes in one update.
 */
export const earlierUsageTable: TableDefinition<EarlierTableLogicalName> = {
  logicalName: 'earlierUsage',
  partitionKey: 'id',
  indexes: [
    { name: 'member-time-index', partitionKey: 'memberId', sortKey: 'startedAt', projection: 'ALL' },
    { name: 'day-time-index', partitionKey: 'day', sortKey: 'startedAt', projection: 'ALL' },
  ],
};

/**
 * The environment variable that carries a table's physical name, e.g. `GATEWAY_TABLE_LEGACY_USAGE`: the stack
 * sets it and the configuration reads it, so both derive it here rather than each spelling it.
 */
export function tableEnvironmentVariable(logicalName: TableLogicalName | EarlierTableLogicalName): string {
  return `GATEWAY_TABLE_${logicalName.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`;
}

/** The environment naming every table, from physical names chosen by a host (the local host picks its own). */
export function tableEnvironment(tableNames: Readonly<Record<TableLogicalName, string>>): Record<string, string> {
  return Object.fromEntries(
    tableDefinitions.map((definition) => [
      tableEnvironmentVariable(definition.logicalName),
      tableNames[definition.logicalName],
    ]),
  );
}
