import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAdministrator } from '../../shared/admin/bootstrap-admin.ts';
import { hashKeySecret } from '../../shared/auth/key-secret.ts';
import type { GatewayServices } from '../../shared/config/gateway-services.ts';
import { startTestStore, type TestStore } from '../support/test-store.ts';

describe.each(['sqlite', 'dynalite'] as const)('the first administrator, on %s', (engine) => {
  let store: TestStore;
  let services: GatewayServices;
  beforeEach(async () => {
    store = await startTestStore(engine);
    services = store.services;
  });
  afterEach(async () => store.close());

  const lookup = (key: string) => services.store.keys.findBySecretHash(hashKeySecret(key));

  it('is created once with one key; later starts issue nothing', async () => {
    const first = await bootstrapAdministrator(services, undefined);
    expect(first.issuedKey).toMatch(/^sk-gw-/);
    expect(await lookup(first.issuedKey as string)).toBeDefined();
    const second = await bootstrapAdministrator(services, undefined);
    expect(second).toEqual({ adminMemberId: first.adminMemberId, issuedKey: undefined });
  });

  it('gets a key on the next start when a first start died between the administrator and its key', async () => {
    await services.store.members.create(
      { id: 'mem_administrator', name: 'Administrator', role: 'admin', policy: {} },
      new Date(),
    );
    await services.store.members.recordFirstAdministrator('mem_administrator');
    const recovered = await bootstrapAdministrator(services, undefined);
    expect(recovered.issuedKey).toMatch(/^sk-gw-/);
    expect((await bootstrapAdministrator(services, undefined)).issuedKey).toBeUndefined();
  });

  it('leaves one administrator when two starts race on a fresh store', async () => {
    await Promise.all([bootstrapAdministrator(services, undefined), bootstrapAdministrator(services, undefined)]);
    const administrators = (await services.store.members.list()).filter((member) => member.role === 'admin');
    expect(administrators).toHaveLength(1);
  });

  it('adds a scripted GATEWAY_ADMIN_KEY as a key of the same administrator', async () => {
    const first = await bootstrapAdministrator(services, 'sk-gw-scripted-admin-key-000001');
    expect(first.issuedKey).toBeUndefined();
    expect((await lookup('sk-gw-scripted-admin-key-000001'))?.memberId).toBe(first.adminMemberId);
    const later = await bootstrapAdministrator(services, 'sk-gw-another-scripted-key-0002');
    expect((await lookup('sk-gw-another-scripted-key-0002'))?.memberId).toBe(later.adminMemberId);
  });
});
