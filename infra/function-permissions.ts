import type { EarlierTableLogicalName, TableLogicalName } from '../shared/store/table-definitions.ts';
import type { FunctionAccess } from './function-profiles.ts';

export type DynamoAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:Query'
  | 'dynamodb:Scan'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem';

export type SecretAction =
  | 'secretsmanager:GetSecretValue'
  | 'secretsmanager:CreateSecret'
  | 'secretsmanager:PutSecretValue'
  | 'secretsmanager:DeleteSecret';

export interface FunctionPermissions {
  /** The DynamoDB actions the function's code calls, per table; a table not named is not reachable at all. */
  readonly tables: Readonly<Partial<Record<TableLogicalName | EarlierTableLogicalName, readonly DynamoAction[]>>>;
  /** What it does with provider credentials (the stage's secrets under `model-gateway/<stage>/`). */
  readonly providerCredentials: readonly SecretAction[];
  /** Whether it reads the origin secret, as every function answering HTTP does before anything else. */
  readonly originCheck: boolean;
  /**
   * The table whose change stream runs it: Lambda's poller reads that stream with the function's role, and sends a
   * batch it gives up on to the function's dead-letter queue.
   */
  readonly stream?: TableLogicalName;
  /** Whether it puts the alerts outbox on the account's default event bus (infra/alert-delivery.ts). */
  readonly alertEvents?: boolean;
}

/** Everything that reads keys, members and connections: a key lookup, a member, a connection list by index. */
const controlReads: readonly DynamoAction[] = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];

/**
 * What the migration of the earlier layout's usage history calls: its progress item read and moved; the earlier
 * records table scanned once and its last days read again by its day index (the only Scan the gateway makes, of
 * the one table nothing writes any more); each record put into the current records table; the carried records
 * read back by partition and added to the rollups.
 */
const earlierMigration = {
  control: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  earlierUsage: ['dynamodb:Scan', 'dynamodb:Query'],
  usage: ['dynamodb:PutItem', 'dynamodb:Query'],
  rollups: ['dynamodb:UpdateItem'],
} as const satisfies FunctionPermissions['tables'];

/**
 * Exactly the DynamoDB and Secrets Manager actions each kind of function calls, no broader grant: no Scan but the
 * migration's of the earlier records table (the gateway reads by key and by index), no DeleteItem or BatchWriteItem
 * where the code has none.
 * test/infra/derived-permissions.test.ts derives the actions from each function's code and its recorded calls,
 * and gateway-permissions.test.ts proves the template grants exactly these.
 */
export const functionPermissions: Readonly<Record<FunctionAccess, FunctionPermissions>> = {
  inference: {
    tables: {
      // Key and member lookups, the connections by index; admission and settlement move the member item; an alert
      // is recorded with one conditional put (shared/alerts/).
      control: [...controlReads, 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      // The record shown as running, then closed by settlement; an admission that finds an expired lease in its
      // way reads that request's record to settle it first. The rollups are the stream consumer's.
      usage: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    },
    providerCredentials: ['secretsmanager:GetSecretValue'],
    originCheck: true,
  },
  // Authenticates, routes and reads the connection's credential; a count is never admitted nor recorded.
  'token-count': {
    tables: { control: controlReads },
    providerCredentials: ['secretsmanager:GetSecretValue'],
    originCheck: true,
  },
  catalog: { tables: { control: controlReads }, providerCredentials: [], originCheck: true },
  admin: {
    tables: {
      // Members, keys (a key whose member refuses it is deleted again), holders and connections.
      control: [...controlReads, 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      // The import of 0.1 usage records: one conditional put each.
      legacyUsage: ['dynamodb:PutItem'],
      // Rebuilding rollups: a day's records read, its rollups written with their figures, stale ones deleted; and
      // the migration of the earlier layout's records (`earlierMigration`).
      usage: ['dynamodb:Query', 'dynamodb:PutItem'],
      rollups: ['dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      earlierUsage: earlierMigration.earlierUsage,
    },
    // Stores credentials, deletes one whose connection was not stored, and reads one to test its connection
    // (`connection test`), which sends it to that connection's upstream only and never returns it.
    providerCredentials: [
      'secretsmanager:GetSecretValue',
      'secretsmanager:CreateSecret',
      'secretsmanager:PutSecretValue',
      'secretsmanager:DeleteSecret',
    ],
    originCheck: true,
  },
  // Names of members and keys come from the control table; totals and details by index; the view never writes.
  'usage-read': {
    tables: { control: controlReads, usage: ['dynamodb:Query'], rollups: ['dynamodb:Query'] },
    providerCredentials: [],
    originCheck: true,
  },
  reaper: {
    tables: {
      // Members by index, then each expired lease released; the dead request's record read and closed.
      control: ['dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
      usage: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
    },
    providerCredentials: [],
    originCheck: false,
  },
  // The alerts outbox read by index and each delivery recorded; keys about to expire (by index, their members by
  // key) raise alerts with a conditional put; the events go to the default bus.
  'alert-delivery': {
    tables: {
      control: [
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:Query',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
      ],
    },
    providerCredentials: [],
    originCheck: false,
    alertEvents: true,
  },
  'earlier-migration': { tables: earlierMigration, providerCredentials: [], originCheck: false },
  // The records stream's consumer: each rollup item one conditional update, read back when a batch comes again.
  'rollup-fold': {
    tables: { rollups: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] },
    providerCredentials: [],
    originCheck: false,
    stream: 'usage',
  },
};
