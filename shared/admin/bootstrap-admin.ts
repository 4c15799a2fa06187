import { issueKey } from '../auth/key-issuance.ts';
import { hashKeySecret } from '../auth/key-secret.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import { StoreConflictError } from '../store/store-errors.ts';

export interface BootstrapResult {
  adminMemberId: string;
  /** The new administrator key, shown once; undefined when nothing new was issued. */
  issuedKey: string | undefined;
}

/**
 * Makes sure the team has its first administrator. On a fresh store it creates one and a key (the given
 * `adminKey` when set, so scripts can drive a fresh instance). On later starts it keeps everything; a given
 * `adminKey` the store does not know yet is added as another key of that administrator, and an administrator
 * left without any key (a first start that died half-way) gets one. Each step can be run again safely.
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
  const adminMemberId = await bootstrapMemberId(services, now);
  if (adminKey !== undefined) {
    if (!(await services.store.keys.findBySecretHash(hashKeySecret(adminKey)))) {
      await issueKey(services.store, keyInput(adminMemberId, 'admin-from-environment', tag, adminKey), now);
    }
    return { adminMemberId, issuedKey: undefined };
  }
  // A start that died between creating the administrator and its key would otherwise leave no way in.
  const administrator = await services.store.admission.account(adminMemberId);
  if (administrator && Object.keys(administrator.keys).length > 0) return { adminMemberId, issuedKey: undefined };
  const issued = await issueKey(services.store, keyInput(adminMemberId, 'bootstrap', tag, undefined), now);
  return { adminMemberId, issuedKey: issued.key };
}

/** Every fresh store's first administrator has this id, so two starts racing on one store create one member. */
const firstAdministratorId = 'mem_administrator';

/** The first administrator's id: the one recorded, or the fixed id once its member and record exist. */
async function bootstrapMemberId(services: GatewayServices, now: Date): Promise<string> {
  const { members } = services.store;
  const recorded = await members.firstAdministrator();
  if (recorded) return recorded;
  try {
    await members.create({ id: firstAdministratorId, name: 'Administrator', role: 'admin', policy: {} }, now);
  } catch (error) {
    if (!(error instanceof StoreConflictError)) throw error;
  }
  return members.recordFirstAdministrator(firstAdministratorId);
}

function keyInput(memberId: string, name: string, tag: string, secret: string | undefined) {
  return { memberId, name, expiresAt: null, policy: {}, tag, ...(secret === undefined ? {} : { secret }) };
}
