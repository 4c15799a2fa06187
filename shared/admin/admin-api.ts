import { listAlerts } from '../alerts/alert-list.ts';
import { issueKey, rotateKey } from '../auth/key-issuance.ts';
import { type GatewayServices, secretNameForConnection } from '../config/gateway-services.ts';
import { badRequest, forbidden, notFound } from '../http/gateway-error.ts';
import type { GatewayRequest, GatewayResponse } from '../http/gateway-request.ts';
import { describeIssues } from '../http/parse-request.ts';
import { checkRequestEnvelope, readJsonObject } from '../http/read-request.ts';
import { renderFailure } from '../http/render-error.ts';
import { checkBaseUrl } from '../net/base-url.ts';
import { upstreamNetworkFor } from '../net/upstream-address.ts';
import { logger } from '../observability/logger.ts';
import { authenticateCaller } from '../sign-in/session-authentication.ts';
import { type ConnectionItem, holderMemberId, toConnectionView } from '../store/control-items.ts';
import { newId } from '../store/ids.ts';
import { migrateEarlierRecords, migrationBudgetMs } from '../usage/migrate-earlier-records.ts';
import { rebuildRollups } from '../usage/rebuild-rollups.ts';
import type * as z from '../validation/zod.ts';
import { canonicalBaseUrl } from '../wires/upstream-wire-format.ts';
import { upstreamWireFor } from '../wires/upstream-wires.ts';
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
import { storedModelDeclarations } from './connection-models.ts';
import { readLegacyUsageRecord } from './legacy-usage-record.ts';
import { testConnection } from './test-connection.ts';

type AdminAction = (services: GatewayServices, request: GatewayRequest, id: string) => Promise<[number, unknown]>;

interface AdminRoute {
  method: 'GET' | 'POST';
  /** Path below `/admin/v1`, with `:id` standing for one path segment. */
  pattern: string;
  action: AdminAction;
}

function parseBody<Schema extends z.ZodMiniType>(schema: Schema, request: GatewayRequest): z.infer<Schema> {
  const parsed = schema.safeParse(readJsonObject(request));
  if (!parsed.success) throw badRequest('invalid_request', describeIssues(parsed.error));
  return parsed.data;
}

const adminRoutes: AdminRoute[] = [
  {
    method: 'POST',
    pattern: '/members',
    async action(services, request) {
      const body = parseBody(createMemberBody, request);
      return [201, { member: await services.store.members.create(body, services.now()) }];
    },
  },
  {
    method: 'GET',
    pattern: '/members',
    action: async (services) => [200, { members: await services.store.members.list() }],
  },
  ...(['disable', 'enable', 'suspend'] as const).map(
    (verb): AdminRoute => ({
      method: 'POST',
      pattern: `/members/:id/${verb}`,
      async action(services, _request, id) {
        const status = verb === 'enable' ? 'active' : verb === 'disable' ? 'disabled' : 'suspended';
        return [200, { member: await services.store.members.setStatus(id, status) }];
      },
    }),
  ),
  {
    method: 'POST',
    pattern: '/keys',
    async action(services, request) {
      const body = parseBody(createKeyBody, request);
      const member = await services.store.members.get(body.memberId, { consistent: true });
      if (!member) throw notFound('member_not_found', `No member has the id ${body.memberId}.`);
      if (member.role === 'holder') throw badRequest('holder_member', 'Holder wallets get holder keys.');
      const issued = await issueKey(
        services.store,
        { ...body, expiresAt: body.expiresAt ?? null, tag: services.config.keyTag },
        services.now(),
      );
      return [201, issued];
    },
  },
  {
    method: 'GET',
    pattern: '/keys',
    async action(services, request) {
      return [200, { keys: await services.store.keys.list(request.query.get('memberId') ?? undefined) }];
    },
  },
  {
    method: 'POST',
    pattern: '/keys/:id/revoke',
    action: async (services, _request, id) => [200, { key: await services.store.keys.revoke(id) }],
  },
  {
    method: 'POST',
    pattern: '/keys/:id/rotate',
    action: async (services, _request, id) => [
      200,
      await rotateKey(services.store, id, services.config, services.now()),
    ],
  },
  {
    method: 'POST',
    pattern: '/holders',
    async action(services, request) {
      const body = parseBody(setHoldingsBody, request);
      return [200, { member: await services.store.members.setHoldings(body.wallet, body.usd, services.now()) }];
    },
  },
  {
    method: 'POST',
    pattern: '/holders/:id/keys',
    async action(services, _request, wallet) {
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
      return [201, issued];
    },
  },
  {
    method: 'POST',
    pattern: '/connections',
    async action(services, request) {
      const { apiKey, models, ...body } = parseBody(createConnectionBody, request);
      if (!services.config.upstreamPrefixes.includes(body.upstream)) {
        throw badRequest('invalid_upstream', `"${body.upstream}" is not an upstream prefix of this gateway.`);
      }
      const baseUrl = checkBaseUrl(body.baseUrl, upstreamNetworkFor(services.config.privateUpstreams, body));
      if (!baseUrl.ok) throw badRequest('invalid_base_url', `The base URL is refused: ${baseUrl.problem}.`);
      const id = newId('con');
      const connection: ConnectionItem = {
        ...body,
        // Stored as the vendor's SDK takes it; a URL that ends in the version the wire appends loses it here.
        baseUrl: canonicalBaseUrl(upstreamWireFor(body.wire).baseUrl, body.baseUrl),
        ...storedModelDeclarations(models),
        id,
        enabled: true,
        createdAt: services.now().toISOString(),
        secretName: secretNameForConnection(services.config, id),
      };
      // Everything is checked above, before the credential is stored. It is stored first (a connection must never
      // exist without the secret it points to), and deleted again if the connection cannot be stored after all.
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
      return [201, { connection: toConnectionView(connection) }];
    },
  },
  {
    method: 'GET',
    pattern: '/connections',
    action: async (services) => [200, { connections: (await services.store.connections.list()).map(toConnectionView) }],
  },
  {
    method: 'POST',
    pattern: '/connections/:id/test',
    async action(services, request, id) {
      // The body is optional: a bare POST tests the model list only.
      const options = request.body.length === 0 ? {} : parseBody(testConnectionBody, request);
      return [200, await testConnection(services, id, { generate: options.generate ?? false, model: options.model })];
    },
  },
  ...(['enable', 'disable'] as const).map(
    (verb): AdminRoute => ({
      method: 'POST',
      pattern: `/connections/:id/${verb}`,
      action: async (services, _request, id) => [
        200,
        { connection: await services.store.connections.setEnabled(id, verb === 'enable') },
      ],
    }),
  ),
  {
    method: 'GET',
    pattern: '/alerts',
    action: async (services, request) => [200, await listAlerts(services.store.alerts, request.query)],
  },
  {
    method: 'POST',
    pattern: '/legacy-usage',
    // Records of the 0.1 engine go to their own table only (spec §9): never the usage records or the rollups.
    async action(services, request) {
      const { records } = parseBody(importLegacyUsageBody, request);
      // Every record is read before any is stored, so a bad record leaves the whole batch unstored.
      const readings = records.map((record, index) => {
        const reading = readLegacyUsageRecord(record);
        if (!reading.ok) throw badRequest('invalid_legacy_record', `records[${index}]: ${reading.problem}.`);
        return reading.record;
      });
      return [200, await services.store.legacyUsage.importRecords(readings, services.now())];
    },
  },
  {
    method: 'POST',
    pattern: '/rollups/rebuild',
    action: async (services, request) => [200, await rebuildRollups(services, parseBody(rebuildRollupsBody, request))],
  },
  {
    method: 'GET',
    pattern: '/earlier-records',
    action: async (services) => [200, await services.store.earlierRecords.progress(services.now())],
  },
  {
    method: 'POST',
    pattern: '/earlier-records/migrate',
    // One bounded piece of the migration per request; the CLI asks again until it completes or must wait.
    action: async (services) => [200, await migrateEarlierRecords(services, migrationBudgetMs.adminRequest)],
  },
];

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

/** The admin API: authenticated with a gateway key whose member is an administrator. */
export async function handleAdmin(services: GatewayServices, request: GatewayRequest): Promise<GatewayResponse> {
  try {
    checkRequestEnvelope(request, services.config.bodyLimitBytes);
    const principal = await authenticateCaller(services, request);
    if (principal.member.role !== 'admin') throw forbidden('admin_only', 'Only administrators may use the admin API.');
    const match = matchAdminRoute(request.method, request.path);
    if (!match) throw notFound('unknown_route', `No admin operation at ${request.method} ${request.path}.`);
    const [statusCode, result] = await match.route.action(services, request, match.id);
    if (request.method === 'POST') {
      // This process sees its own changes at once; other instances within the cache time (revocation excepted).
      services.caches.principals.clear();
      services.caches.connections.clear();
      logger.info('admin change', { operation: match.route.pattern, by: principal.keyId, id: match.id });
    }
    return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(result) };
  } catch (error) {
    return renderFailure(error, 'openai', { operation: 'admin request', requestId: request.requestId });
  }
}
