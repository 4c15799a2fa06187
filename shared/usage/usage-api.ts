import type { Principal } from '../auth/principal.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import { notFound } from '../http/gateway-error.ts';
import type { GatewayRequest, GatewayResponse } from '../http/gateway-request.ts';
import { checkRequestEnvelope } from '../http/read-request.ts';
import { renderFailure } from '../http/render-error.ts';
import { authenticateCaller } from '../sign-in/session-authentication.ts';
import { readNewestRecords } from './newest-records.ts';
import { csvContentType, toCsv } from './usage-csv.ts';
import { toDetailRow } from './usage-details.ts';
import { resolvePeriod } from './usage-period.ts';
import { parseUsageQuery, type UsageQuery } from './usage-query.ts';
import { appliedFilters, buildUsageSummary, periodView } from './usage-summary.ts';
import { canViewTeam, selectVisibleRecords } from './usage-visibility.ts';
import { keyLabeller, listVisibleKeys } from './visible-keys.ts';

/** Spec §8: the details list and the CSV export. */
export const detailsLimit = 200;
export const exportLimit = 1_000;

const basePath = '/usage-api/v1';

/** Private data: never kept by a browser or a shared cache. */
const privateHeaders = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

function json(body: unknown): GatewayResponse {
  return {
    statusCode: 200,
    headers: { ...privateHeaders, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}

/**
 * The usage data API, read-only, authenticated with any gateway key. Paths below `/usage-api/v1`:
 * `GET /summary`, `GET /requests`, `GET /export.csv` (query `period`, `scope`, `keyId`, `providers`) and
 * `GET /keys`. Shapes are in docs/admin-and-usage.md.
 */
export async function handleUsage(services: GatewayServices, request: GatewayRequest): Promise<GatewayResponse> {
  try {
    checkRequestEnvelope(request, services.config.bodyLimitBytes);
    const principal = await authenticateCaller(services, request);
    switch (request.path) {
      case `${basePath}/summary`:
        return json(await summary(services, principal, parseUsageQuery(request.query)));
      case `${basePath}/requests`:
        return json(await requests(services, principal, parseUsageQuery(request.query), detailsLimit));
      case `${basePath}/export.csv`:
        return await exportCsv(services, principal, parseUsageQuery(request.query));
      case `${basePath}/keys`:
        return json(await keys(services, principal));
      default:
        throw notFound('unknown_route', `No usage operation at ${request.method} ${request.path}.`);
    }
  } catch (error) {
    const rendered = renderFailure(error, 'openai', { operation: 'usage request', requestId: request.requestId });
    return { ...rendered, headers: { ...rendered.headers, ...privateHeaders } };
  }
}

async function summary(services: GatewayServices, principal: Principal, query: UsageQuery) {
  const period = resolvePeriod(query.period, services.now());
  const selection = await selectVisibleRecords(services.store, principal, query);
  return buildUsageSummary(services, principal, query, period, selection);
}

async function requests(services: GatewayServices, principal: Principal, query: UsageQuery, limit: number) {
  const period = resolvePeriod(query.period, services.now());
  const selection = await selectVisibleRecords(services.store, principal, query);
  const [newest, visibleKeys] = await Promise.all([
    readNewestRecords(services.store, period, selection, limit),
    listVisibleKeys(services.store, principal, query.scope),
  ]);
  const label = keyLabeller(visibleKeys);
  return {
    period: periodView(period),
    filters: appliedFilters(query),
    limit,
    more: newest.more,
    rows: newest.records.map((record) => toDetailRow(record, label)),
  };
}

async function exportCsv(services: GatewayServices, principal: Principal, query: UsageQuery): Promise<GatewayResponse> {
  const result = await requests(services, principal, query, exportLimit);
  const day = services.now().toISOString().slice(0, 10);
  return {
    statusCode: 200,
    headers: {
      ...privateHeaders,
      'content-type': csvContentType,
      'content-disposition': `attachment; filename="usage-${query.period}-${day}.csv"`,
      // The CSV has no room for this; the page reads it to say when the export was cut at the limit.
      'x-usage-more': String(result.more),
    },
    body: toCsv(result.rows),
  };
}

async function keys(services: GatewayServices, principal: Principal) {
  const team = canViewTeam(principal);
  return {
    viewer: {
      memberId: principal.memberId,
      memberName: principal.member.name,
      role: principal.member.role,
      keyId: principal.keyId,
      canViewTeam: team,
    },
    keys: await listVisibleKeys(services.store, principal, team ? 'team' : 'own'),
  };
}
