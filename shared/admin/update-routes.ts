import { secretNameForConnection } from '../config/gateway-services.ts';
import { badRequest } from '../http/gateway-error.ts';
import { checkBaseUrl } from '../net/base-url.ts';
import { upstreamNetworkFor } from '../net/upstream-address.ts';
import { logger } from '../observability/logger.ts';
import { changedFields } from '../store/audit-entries.ts';
import { type ConnectionChanges, toConnectionView } from '../store/control-items.ts';
import { newId } from '../store/ids.ts';
import { StoreNotFoundError, VersionConflictError } from '../store/store-errors.ts';
import { canonicalBaseUrl } from '../wires/upstream-wire-format.ts';
import { upstreamWireFor } from '../wires/upstream-wires.ts';
import { type AdminRoute, parseBody } from './admin-route.ts';
import { updateConnectionBody, updateKeyBody, updateMemberBody } from './admin-schemas.ts';
import { storedModelDeclarations } from './connection-models.ts';

/**
 * The updates of the admin API: each one conditional on the version the caller read (a stale one is a 409
 * `version_conflict` carrying the record as now stored), each audited with the fields it changed.
 */
export const updateRoutes: AdminRoute[] = [
  {
    method: 'POST',
    pattern: '/members/:id/update',
    audience: 'admin',
    async action({ services, request, id }) {
      const { version, ...changes } = parseBody(updateMemberBody, request);
      const before = await services.store.members.get(id, { consistent: true });
      if (!before) throw new StoreNotFoundError('member', `No member has the id ${id}.`);
      // A holder wallet's member is the holdings source's: it has no name, role or policy to edit.
      if (before.role === 'holder') throw badRequest('holder_member', 'A holder wallet is changed by its holdings.');
      const member = await services.store.members.update(id, version, changes);
      return {
        status: 200,
        body: { member },
        audit: { action: 'member.update', target: { type: 'member', id }, ...changedFields(before, member) },
      };
    },
  },
  {
    method: 'POST',
    pattern: '/keys/:id/update',
    audience: 'admin',
    async action({ services, request, id }) {
      const { version, ...changes } = parseBody(updateKeyBody, request);
      const before = await services.store.keys.get(id, { consistent: true });
      if (!before) throw new StoreNotFoundError('key', `No key has the id ${id}.`);
      const key = await services.store.keys.update(id, version, changes);
      return {
        status: 200,
        body: { key },
        audit: { action: 'key.update', target: { type: 'key', id }, ...changedFields(before, key) },
      };
    },
  },
  {
    method: 'POST',
    pattern: '/connections/:id/update',
    audience: 'admin',
    async action({ services, request, id }) {
      const { version, apiKey, models, baseUrl, enabled } = parseBody(updateConnectionBody, request);
      const existing = await services.store.connections.get(id);
      if (!existing) throw new StoreNotFoundError('connection', `No connection has the id ${id}.`);
      // The old credential deleted below must be the one stored at the version this update is conditional on.
      if (existing.version !== version) throw new VersionConflictError('connection', toConnectionView(existing));
      const changes: ConnectionChanges = { enabled, ...(models && storedModelDeclarations(models)) };
      if (baseUrl !== undefined) {
        const checked = checkBaseUrl(baseUrl, upstreamNetworkFor(services.config.privateUpstreams, existing));
        if (!checked.ok) throw badRequest('invalid_base_url', `The base URL is refused: ${checked.problem}.`);
        changes.baseUrl = canonicalBaseUrl((await upstreamWireFor(existing.wire)).baseUrl, baseUrl);
      }
      if (apiKey !== undefined) {
        // The new credential is stored first, under a name of its own, so the connection never points at a
        // credential that is not there; the old one is deleted once the connection points at the new one.
        changes.secretName = `${secretNameForConnection(services.config, id)}/${newId('cred')}`;
        await services.secrets.write(changes.secretName, apiKey);
      }
      let updated: Awaited<ReturnType<typeof services.store.connections.update>>;
      try {
        updated = await services.store.connections.update(id, version, changes);
      } catch (error) {
        if (changes.secretName) await removeCredential(services, changes.secretName, 'the update failed');
        throw error;
      }
      // A Bedrock connection that signed as the host had no credential to replace.
      if (changes.secretName && existing.secretName !== '') {
        await removeCredential(services, existing.secretName, 'it was replaced');
      }
      const fields = changedFields(toConnectionView(existing), toConnectionView(updated));
      return {
        status: 200,
        body: { connection: toConnectionView(updated) },
        audit: {
          action: 'connection.update',
          target: { type: 'connection', id },
          // That the credential changed is recorded; the credential itself never is.
          before: { ...fields.before, ...(changes.secretName ? { credential: 'previous' } : {}) },
          after: { ...fields.after, ...(changes.secretName ? { credential: 'replaced' } : {}) },
        },
      };
    },
  },
];

async function removeCredential(
  services: Parameters<AdminRoute['action']>[0]['services'],
  secretName: string,
  why: string,
): Promise<void> {
  await services.secrets.remove(secretName).catch((error: unknown) => {
    logger.error(`a credential could not be deleted after ${why}`, { secretName, error });
  });
}
