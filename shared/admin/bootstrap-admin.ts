import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { GatewayServices } from '../config/gateway-services.ts';
import { getControlItem } from '../store/control-table.ts';
import { isConditionFailure } from '../store/dynamo-client.ts';
import { createKey, findSecret } from '../store/key-store.ts';
import { createMember } from '../store/member-store.ts';

interface BootstrapItem {
  pk: 'meta#bootstrap';
  adminMemberId: string;
}

export interface BootstrapResult {
  adminMemberId: string;
  /** The new administrator key, shown once; undefined when nothing new was issued. */
  issuedKey: string | undefined;
}

/**
 * Makes sure the team has its first administrator. On a fresh store it creates one and a key (the given
 * `adminKey` when set, so scripts can drive a fresh instance). On later starts it keeps everything; a given
 * `adminKey` the store does not know yet is added as another key of that administrator.
 */
export async function bootstrapAdministrator(
  services: GatewayServices,
  adminKey: string | undefined,
): Promise<BootstrapResult> {
  const tag = services.config.keyTag;
  if (adminKey !== undefined && !/^sk-[a-z0-9]+-[A-Za-z0-9_-]{16,}$/.test(adminKey)) {
    throw new Error(`GATEWAY_ADMIN_KEY must look like sk-${tag}-<at least 16 letters, digits, "-" or "_">`);
  }
  if (adminKey !== undefined && !adminKey.startsWith(`sk-${tag}-`)) {
    throw new Error(`GATEWAY_ADMIN_KEY must start with sk-${tag}- (the gateway key tag)`);
  }
  const now = services.now();
  let bootstrap = await getControlItem<BootstrapItem>(services.control, 'meta#bootstrap', true);
  if (!bootstrap) {
    const member = await createMember(services.control, { name: 'Administrator', role: 'admin', policy: {} }, now);
    try {
      await services.control.client.send(
        new PutCommand({
          TableName: services.control.tableName,
          Item: { pk: 'meta#bootstrap', adminMemberId: member.id },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      bootstrap = { pk: 'meta#bootstrap', adminMemberId: member.id };
      const issued = await createKey(
        services.control,
        { memberId: member.id, name: 'bootstrap', expiresAt: null, policy: {}, tag, secret: adminKey },
        now,
      );
      return { adminMemberId: member.id, issuedKey: adminKey === undefined ? issued.key : undefined };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      bootstrap = await getControlItem<BootstrapItem>(services.control, 'meta#bootstrap', true);
    }
  }
  if (!bootstrap) throw new Error('the bootstrap record vanished while it was being written');
  if (adminKey !== undefined && !(await findSecret(services.control, adminKey))) {
    await createKey(
      services.control,
      {
        memberId: bootstrap.adminMemberId,
        name: 'admin-from-environment',
        expiresAt: null,
        policy: {},
        tag,
        secret: adminKey,
      },
      now,
    );
  }
  return { adminMemberId: bootstrap.adminMemberId, issuedKey: undefined };
}
