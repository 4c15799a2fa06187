import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { StoreUnavailableError } from '../store-errors.ts';
import type { TableLogicalName } from '../table-definitions.ts';

export interface DynamoClientOptions {
  region: string;
  /** An endpoint other than AWS's (dynalite, DynamoDB Local); absent on AWS. */
  endpoint?: string | undefined;
}

/** The tables of one deployment and the client that reaches them: what every module of this engine takes. */
export interface DynamoTables {
  readonly client: DynamoDBDocumentClient;
  readonly names: Readonly<Record<TableLogicalName, string>>;
  /** The earlier layout's records table, which the migration reads (absent: there is none to carry). */
  readonly earlierUsageTable?: string | undefined;
}

export function createDocumentClient({ region, endpoint }: DynamoClientOptions): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region,
    ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  const documents = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
  documents.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        throw isUnavailable(error) ? new StoreUnavailableError(unavailableMessage, { cause: error }) : error;
      }
    },
    // First in the stack, so it sees every failure, the SDK's retries included, as the caller would.
    { step: 'initialize', name: 'storeUnavailable', priority: 'high' },
  );
  return documents;
}

const unavailableMessage = 'DynamoDB is throttling or unreachable.';

/** What DynamoDB (and DynamoDB Local) call being over capacity or briefly unavailable, after the SDK's retries. */
const throttlingErrors = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
]);
const connectionErrors = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return throttlingErrors.has(error.name) || (typeof code === 'string' && connectionErrors.has(code));
}

/** The table does not exist (an engine on one machine whose data folder never had it). */
export function isMissingTable(error: unknown): boolean {
  return error instanceof Error && error.name === 'ResourceNotFoundException';
}

/** DynamoDB's "condition failed", whichever client raised it. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** Every item a Query matches, page after page. */
export async function queryAll<T>(
  tables: DynamoTables,
  input: Omit<QueryCommandInput, 'ExclusiveStartKey'>,
): Promise<T[]> {
  const items: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tables.client.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    items.push(...((page.Items ?? []) as T[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}
