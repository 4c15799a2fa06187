import { listAlerts } from '../alerts/alert-list.ts';
import { issueKey, rotateKey } from '../auth/key-issuance.ts';
import { type GatewayServices, secretNameForConnection } from '../config/gateway-services.ts';
import { badRequest, forbidden, notFound } from '../http/gateway-error.ts';
import type { GatewayRequest, GatewayResponse } from '../http/gateway-request.ts';
import { checkRequestEnvelope } from '../http/read-request.ts';
import { renderFailure } from '../http/render-error.ts';
import { checkBaseUrl } from '../net/base-url.ts';
import { upstreamNetworkFor } from '../net/upstream-address.ts';
import { logger } from '../observability/logger.ts';
import { authenticateCaller } from '../sign-in/session-authentication.ts';
import { type AuditChange, type AuditTargetType, auditSnapshot, changedFields } from '../store/audit-entries.ts';
import { type ConnectionItem, holderMemberId, toConnectionView } from '../store/control-items.ts';
import { newId } from '../store/ids.ts';
import { VersionConflictError } from '../store/store-errors.ts';
import { canonicalBaseUrl } from '../wires/upstream-wire-format.ts';
import { upstreamWireFor } from '../wires/upstream-wires.ts';
import { type AdminRoute, parseBody } from './admin-route.ts';
import {
  createConnectionBody,
  createKeyBody,
  createMemberBody,
  idSchema,
  importLegacyUsageBody,
  rebuildRollupsBody,
  setHoldingsBody,
  testConnectionBody,
  walletSchema,
} from './admin-schemas.ts';
import { auditActorOf, recordAudit } from './audit-log.ts';
import { auditRoutes } from './audit-routes.ts';
import { connectionAddress } from './connection-address.ts';
import { storedModelDeclarations } from './connection-models.ts';
import { listRoutes } from './list-routes.ts';
import { selfServiceRoutes } from './self-service-routes.ts';
import { updateRoutes } from './update-routes.ts';

const adminRoutes: AdminRoute[] = [
  {
    method: 'POST',
    pattern: '/members',
    audience: 'admin',
    async action({ services, request }) {
      const body = parseBody(createMemberBody, request);
      const member = await services.store.members.create(body, services.now());
      return { status: 201, body: { member }, audit: created('member.create', 'member', member.id, member) };
    },
  },
  ...(['disable', 'enable', 'suspend'] as const).map(
    (verb): AdminRoute => ({
      method: 'POST',
      pattern: `/members/:id/${verb}`,
      audience: 'admin',
      async action({ services, id }) {
        const status = verb === 'enable' ? 'active' : verb === 'disable' ? 'disabled' : 'suspended';
        const before = await services.store.members.get(id, { consistent: true });
        const member = await services.store.members.setStatus(id, status);
        return {
          status: 200,
          body: { member },
          audit: { action: `member.${verb}`, target: { type: 'member', id }, ...changedFields(before ?? {}, member) },
        };
      },
    }),
  ),
  {
    method: 'POST',
    pattern: '/keys',
    audience: 'admin',
    async action({ services, request }) {
      const body = parseBody(createKeyBody, request);
      const member = await services.store.members.get(body.memberId, { consistent: true });
      if (!member) throw notFound('member_not_found', `No member has the id ${body.memberId}.`);
      if (member.role === 'holder') throw badRequest('holder_member', 'Holder wallets get holder keys.');
      const issued = await issueKey(
        services.store,
        { ...body, expiresAt: body.expiresAt ?? null, tag: services.config.keyTag },
        services.now(),
      );
      return { status: 201, body: issued, audit: created('key.create', 'key', issued.id, issued) };
    },
  },
  {
    method: 'POST',
    pattern: '/keys/:id/revoke',
    audience: 'admin',
    async action({ services, id }) {
      const before = await services.store.keys.get(id, { consistent: true });
      const key = await services.store.keys.revoke(id);
      return {
        status: 200,
        body: { key },
        audit: { action: 'key.revoke', target: { type: 'key', id }, ...changedFields(before ?? {}, key) },
      };
    },
  },
  {
    method: 'POST',
    pattern: '/keys/:id/rotate',
    audience: 'admin',
    async action({ services, id }) {
      const before = await services.store.keys.get(id, { consistent: true });
      const rotated = await rotateKey(services.store, id, services.config, services.now());
      const { key: _secret, ...after } = rotated;
      return {
        status: 200,
        body: rotated,
        audit: { action: 'key.rotate', target: { type: 'key', id }, ...changedFields(before ?? {}, after) },
      };
    },
  },
  {
    method: 'POST',
    pattern: '/holders',
    audience: 'admin',
    async action({ services, request }) {
      const body = parseBody(setHoldingsBody, request);
      const before = await services.store.members.get(holderMemberId(body.wallet), { consistent: true });
      const member = await services.store.members.setHoldings(body.wallet, body.usd, services.now());
      return {
        status: 200,
        body: { member },
        audit: {
          action: 'holder.set-holdings',
          target: { type: 'holder', id: member.id },
          ...(before ? changedFields(before, member) : { before: null, after: auditSnapshot(member) }),
        },
      };
    },
  },
  {
    method: 'POST',
    pattern: '/holders/:id/keys',
    audience: 'admin',
    async action({ services, id: wallet }) {
      if (!walletSchema.safeParse(wallet).success) throw badRequest('invalid_request', 'That is not a wallet name.');
      const member = await services.store.members.get(holderMemberId(wallet), { consistent: true });
      if (member?.role !== 'holder') {
        throw notFound('holder_not_found', `No holder wallet "${wallet}"; set its holdings first.`);
      }
      const issued = await issueKey(
        services.store,
        { memberId: member.id, name: 'holder', expiresAt: null, policy: {}, tag: services.config.holderTag },
        services.now(),
      );
      return { status: 201, body: issued, audit: created('holder.issue-key', 'key', issued.id, issued) };
    },
  },
  {
    method: 'POST',
    pattern: '/connections',
    audience: 'admin',
    async action({ services, request }) {
      const { apiKey, models, region, baseUrl: givenBaseUrl, ...body } = parseBody(createConnectionBody, request);
      if (!services.config.upstreamPrefixes.includes(body.upstream)) {
        throw badRequest('invalid_upstream', `"${body.upstream}" is not an upstream prefix of this gateway.`);
      }
      const { baseUrl: requestedBaseUrl, credentialRequired } = connectionAddress(
        body.wire,
        givenBaseUrl,
        region,
        models,
      );
      if (credentialRequired && apiKey === undefined) {
        throw badRequest('invalid_request', 'A connection of this wire needs its provider credential (apiKey).');
      }
      const baseUrl = checkBaseUrl(requestedBaseUrl, upstreamNetworkFor(services.config.privateUpstreams, body));
      if (!baseUrl.ok) throw badRequest('invalid_base_url', `The base URL is refused: ${baseUrl.problem}.`);
      const id = newId('con');
      const connection: ConnectionItem = {
        ...body,
        // Stored as the vendor's SDK takes it; a URL that ends in the version the wire appends loses it here.
        baseUrl: canonicalBaseUrl((await upstreamWireFor(body.wire)).baseUrl, requestedBaseUrl),
        ...(region === undefined ? {} : { region }),
        ...storedModelDeclarations(models),
        id,
        enabled: true,
        createdAt: services.now().toISOString(),
        version: 1,
        // A connection without a credential (Bedrock signing as the host's AWS identity) names no secret.
        secretName: apiKey === undefined ? '' : secretNameForConnection(services.config, id),
      };
      // Everything is checked above, before anything is stored.
      if (apiKey === undefined) {
        await services.store.connections.create(connection);
      } else {
        await storeWithCredential(services, connection, apiKey);
      }
      const view = toConnectionView(connection);
      return {
        status: 201,
        body: { connection: view },
        audit: created('connection.create', 'connection', id, view),
      };
    },
  },
  {
    method: 'POST',
    pattern: '/connections/:id/test',
    audience: 'admin',
    async action({ services, request, id }) {
      // The body is optional: a bare POST tests the model list only.
      const options = request.body.length === 0 ? {} : parseBody(testConnectionBody, request);
      const generate = options.generate ?? false;
      // The rare operations below are imported when first asked for: the function's cold start does not load them.
      const { testConnection } = await import('./test-connection.ts');
      const report = await testConnection(services, id, { generate, model: options.model });
      return {
        status: 200,
        body: report,
        // A test changes nothing stored, but it spends the connection's credential: who ran it is recorded.
        audit: {
          action: 'connection.test',
          target: { type: 'connection', id },
          before: null,
          after: { generate, model: options.model ?? null },
        },
      };
    },
  },
  ...(['enable', 'disable'] as const).map(
    (verb): AdminRoute => ({
      method: 'POST',
      pattern: `/connections/:id/${verb}`,
      audience: 'admin',
      async action({ services, id }) {
        const before = await services.store.connections.get(id);
        const connection = await services.store.connections.setEnabled(id, verb === 'enable');
        const fields = changedFields(before ? toConnectionView(before) : {}, connection);
        return {
          status: 200,
          body: { connection },
          audit: { action: `connection.${verb}`, target: { type: 'connection', id }, ...fields },
        };
      },
    }),
  ),
  {
    method: 'GET',
    pattern: '/alerts',
    audience: 'admin',
    action: async ({ services, request }) => ({
      status: 200,
      body: await listAlerts(services.store.alerts, request.query),
    }),
  },
  {
    method: 'POST',
    pattern: '/legacy-usage',
    audience: 'admin',
    // Records of the 0.1 engine go to their own table only (spec §9): never the usage records or the rollups.
    async action({ services, request }) {
      const { records } = parseBody(importLegacyUsageBody, request);
      const { readLegacyUsageRecord } = await import('./legacy-usage-record.ts');
      // Every record is read before any is stored, so a bad record leaves the whole batch unstored.
      const readings = records.map((record, index) => {
        const reading = readLegacyUsageRecord(record);
        if (!reading.ok) throw badRequest('invalid_legacy_record', `records[${index}]: ${reading.problem}.`);
        return reading.record;
      });
      return { status: 200, body: await services.store.legacyUsage.importRecords(readings, services.now()) };
    },
  },
  {
    method: 'POST',
    pattern: '/rollups/rebuild',
    audience: 'admin',
    async action({ services, request }) {
      const body = parseBody(rebuildRollupsBody, request);
      const { rebuildRollups } = await import('../usage/rebuild-rollups.ts');
      return { status: 200, body: await rebuildRollups(services, body) };
    },
  },
  {
    method: 'GET',
    pattern: '/earlier-records',
    audience: 'admin',
    action: async ({ services }) => ({
      status: 200,
      body: await services.store.earlierRecords.progress(services.now()),
    }),
  },
  {
    method: 'POST',
    pattern: '/earlier-records/migrate',
    audience: 'admin',
    // One bounded piece of the migration per request; the CLI asks again until it completes or must wait.
    async action({ services }) {
      const { migrateEarlierRecords, migrationBudgetMs } = await import('../usage/migrate-earlier-records.ts');
      return { status: 200, body: await migrateEarlierRecords(services, migrationBudgetMs.adminRequest) };
    },
  },
  ...listRoutes,
  ...updateRoutes,
  ...auditRoutes,
  ...selfServiceRoutes,
];

/** The audit description of a record just created: no before, its fields after (never a secret). */
function created(action: string, type: AuditTargetType, id: string, record: object): AuditChange {
  return { action, target: { type, id }, before: null, after: auditSnapshot(record) };
}

function matchAdminRoute(method: string, path: string): { route: AdminRoute; id: string } | undefined {
  const segments = path.split('/');
  for (const route of adminRoutes) {
    if (route.method !== method) continue;
    const pattern = `/admin/v1${route.pattern}`.split('/');
    if (pattern.length !== segments.length) continue;
    let id = '';
    const matches = pattern.every((part, index) => {
      if (part === ':id') {
        id = pathId(segments[index] ?? '');
        return true;
      }
      return part === segments[index];
    });
    if (matches) return { route, id };
  }
  return undefined;
}

/** One id segment of an admin path, decoded; what cannot be an id is a 400, before the store is asked. */
function pathId(segment: string): string {
  let id: string;
  try {
    id = decodeURIComponent(segment);
  } catch {
    throw badRequest('invalid_path', 'The path holds malformed percent-encoding.');
  }
  if (!idSchema.safeParse(id).success) throw badRequest('invalid_path', 'The path does not name an id.');
  return id;
}

/**
 * The admin API. Each route declares who may call it: administrators, or any active member for their own page
 * (`/me`); a holder key never. Every change is written to the audit log right after it succeeds, so there is never
 * an entry for a change that failed; an entry that cannot be written after a change is logged as an error with
 * the entry itself (see docs/admin-api.md).
 */
export async function handleAdmin(services: GatewayServices, request: GatewayRequest): Promise<GatewayResponse> {
  try {
    checkRequestEnvelope(request, services.config.bodyLimitBytes);
    const principal = await authenticateCaller(services, request);
    const match = matchAdminRoute(request.method, request.path);
    if (principal.member.role !== 'admin' && (match?.route.audience !== 'member' || principal.holder)) {
      throw forbidden('admin_only', 'Only administrators may use the admin API.');
    }
    if (!match) throw notFound('unknown_route', `No admin operation at ${request.method} ${request.path}.`);
    const answer = await match.route.action({ services, request, id: match.id, principal });
    if (request.method === 'POST') {
      // This process sees its own changes at once; other instances at their next admission (policy floors).
      services.caches.principals.clear();
      services.caches.connections.clear();
      logger.info('admin change', { operation: match.route.pattern, by: principal.keyId, id: match.id });
    }
    if (answer.audit) await recordAudit(services, auditActorOf(principal), answer.audit);
    if (answer.raw) {
      return { statusCode: answer.status, headers: { 'content-type': answer.raw.contentType }, body: answer.raw.body };
    }
    return {
      statusCode: answer.status,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(answer.body),
    };
  } catch (error) {
    const failure = renderFailure(error, 'openai', { operation: 'admin request', requestId: request.requestId });
    // A stale version: the caller gets the record as now stored beside the error, to show it and reload.
    if (error instanceof VersionConflictError) {
      return { ...failure, body: JSON.stringify({ ...JSON.parse(failure.body), current: error.current }) };
    }
    return failure;
  }
}

/**
 * Stores a connection with its credential: the credential first (a connection must never exist without the secret
 * it points to), deleted again if the connection cannot be stored after all.
 */
async function storeWithCredential(services: GatewayServices, connection: ConnectionItem, apiKey: string) {
  await services.secrets.write(connection.secretName, apiKey);
  try {
    await services.store.connections.create(connection);
  } catch (error) {
    await services.secrets.remove(connection.secretName).catch((removal: unknown) => {
      logger.error('a credential was stored without its connection and could not be deleted', {
        secretName: connection.secretName,
        error: removal,
      });
    });
    throw error;
  }
}
