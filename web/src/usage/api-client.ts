import type { KeysAnswer, RequestsPage, UsageSummary, ViewFilters } from '../usage-types.ts';

/** A refusal or failure of the usage API, with the gateway's machine-readable code when it sent one. */
export class UsageApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'UsageApiError';
  }
}

const basePath = '/usage-api/v1';

function filterQuery(filters: ViewFilters): string {
  const query = new URLSearchParams({ period: filters.period, scope: filters.scope });
  if (filters.keyId) query.set('keyId', filters.keyId);
  if (filters.providers.length > 0) query.set('providers', filters.providers.join(','));
  return query.toString();
}

/** Calls the API with the key in a header; the query string carries filters only, never the key. */
async function call(key: string, path: string, signal?: AbortSignal): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(`${basePath}${path}`, {
      headers: { authorization: `Bearer ${key}` },
      cache: 'no-store',
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new UsageApiError(0, 'network_error', 'The gateway could not be reached. Check the connection and retry.');
  }
  if (!response.ok) throw await toApiError(response);
  return response;
}

async function toApiError(response: Response): Promise<UsageApiError> {
  let code = 'http_error';
  let message = `The gateway answered ${response.status}.`;
  try {
    const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.code === 'string') code = body.error.code;
    if (typeof body.error?.message === 'string') message = body.error.message;
  } catch {
    // Not the gateway's JSON envelope (a proxy's page, say): the status alone must do.
  }
  return new UsageApiError(response.status, code, message);
}

export async function fetchKeys(key: string): Promise<KeysAnswer> {
  return (await (await call(key, '/keys')).json()) as KeysAnswer;
}

export async function fetchSummary(key: string, filters: ViewFilters, signal: AbortSignal): Promise<UsageSummary> {
  return (await (await call(key, `/summary?${filterQuery(filters)}`, signal)).json()) as UsageSummary;
}

export async function fetchRequests(key: string, filters: ViewFilters, signal: AbortSignal): Promise<RequestsPage> {
  return (await (await call(key, `/requests?${filterQuery(filters)}`, signal)).json()) as RequestsPage;
}

export interface CsvDownload {
  blob: Blob;
  fileName: string;
  /** The export stopped at its limit of 1,000 rows. */
  more: boolean;
}

export async function fetchCsv(key: string, filters: ViewFilters): Promise<CsvDownload> {
  const response = await call(key, `/export.csv?${filterQuery(filters)}`);
  const disposition = response.headers.get('content-disposition') ?? '';
  const fileName = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'usage.csv';
  return { blob: await response.blob(), fileName, more: response.headers.get('x-usage-more') === 'true' };
}
