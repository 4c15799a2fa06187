import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SignInItems } from '../sign-in-items.ts';
import { putControlItemOnce } from './control-reads.ts';
import type { DynamoTables } from './dynamo-tables.ts';

/**
 * Sign-in's items in the control table, `signin#<kind>#<id>`, with no `kind` attribute so that none of them enters
 * the kind index. `take` is a delete that returns the old item: of two callers, only one gets it.
 */
interface SignInControlItem {
  pk: string;
  value: string;
  expiresAt?: number;
}

const signInKey = (kind: string, id: string) => ({ pk: `signin#${kind}#${id}` });

const toItem = (item: SignInControlItem | undefined) =>
  item ? { value: item.value, expiresAt: typeof item.expiresAt === 'number' ? item.expiresAt : null } : undefined;

export function dynamoSignInItems(tables: DynamoTables): SignInItems {
  const TableName = tables.names.control;
  return {
    putOnce: (kind, id, value, expiresAt) =>
      putControlItemOnce<SignInControlItem>(tables, {
        ...signInKey(kind, id),
        value,
        ...(expiresAt === null ? {} : { expiresAt }),
      }),
    async get(kind, id) {
      const result = await tables.client.send(
        new GetCommand({ TableName, Key: signInKey(kind, id), ConsistentRead: true }),
      );
      return toItem(result.Item as SignInControlItem | undefined);
    },
    async take(kind, id) {
      const result = await tables.client.send(
        new DeleteCommand({ TableName, Key: signInKey(kind, id), ReturnValues: 'ALL_OLD' }),
      );
      return toItem(result.Attributes as SignInControlItem | undefined);
    },
    async remove(kind, id) {
      await tables.client.send(new DeleteCommand({ TableName, Key: signInKey(kind, id) }));
    },
  };
}
