import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAdministrator } from '../../shared/admin/bootstrap-admin.ts';
import type { GatewayServices } from '../../shared/config/gateway-services.ts';
import { findSecret } from '../../shared/store/key-store.ts';
import { createMember, listMembers } from '../../shared/store/member-store.ts';
import { startTestStore } from '../support/test-store.ts';

let services: GatewayServices;
let close: () => Promise<void>;
beforeEach(async () => {
  ({ services, close } = await startTestStore());
});
afterEach(async () => close());

describe('the first administrator', () => {
  it('is created once with one key; later starts issue nothing', async () => {
    const first = await bootstrapAdministrator(services, undefined);
    expect(first.issuedKey).toMatch(/^sk-gw-/);
    expect(await findSecret(services.control, first.issuedKey!)).toBeDefined();
    const second = await bootstrapAdministrator(services, undefined);
    expect(second).toEqual({ adminMemberId: first.adminMemberId, issuedKey: undefined });
  });

  it('gets a key on the next start when a first start died between the administrator and its key', async () => {
    await createMember(
      services.control,
      { id: 'mem_administrator', name: 'Administrator', role: 'admin', policy: {} },
      new Date(),
    );
    await services.control.client.send(
      new PutCommand({
        TableName: services.control.tableName,
        Item: { pk: 'meta#bootstrap', adminMemberId: 'mem_administrator' },
      }),
    );
    const recovered = await bootstrapAdministrator(services, undefined);
    expect(recovered.issuedKey).toMatch(/^sk-gw-/);
    expect((await bootstrapAdministrator(services, undefined)).issuedKey).toBeUndefined();
  });

  it('leaves one administrator when two starts race on a fresh store', async () => {
    await Promise.all([bootstrapAdministrator(services, undefined), bootstrapAdministrator(services, undefined)]);
    const administrators = (await listMembers(services.control)).filter((member) => member.role === 'admin');
    expect(administrators).toHaveLength(1);
  });

  it('adds a scripted GATEWAY_ADMIN_KEY as a key of the same administrator', async () => {
    const first = await bootstrapAdministrator(services, 'sk-gw-scripted-admin-key-000001');
    expect(first.issuedKey).toBeUndefined();
    expect((await findSecret(services.control, 'sk-gw-scripted-admin-key-000001'))?.memberId).toBe(first.adminMemberId);
    const later = await bootstrapAdministrator(services, 'sk-gw-another-scripted-key-0002');
    expect((await findSecret(services.control, 'sk-gw-another-scripted-key-0002'))?.memberId).toBe(later.adminMemberId);
  });
});
