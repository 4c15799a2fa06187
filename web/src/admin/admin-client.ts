import type { SessionAnswer } from './admin-types.ts';

/** A refusal or failure of the gateway, with its machine-readable code and, on a 409, the record as now stored. */
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly current?: unknown,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

/**
 * How the console proves who it is: a gateway key (kept in session storage, sent as a header, never in a URL), or
 * the SSO session cookie, which the gateway accepts only with the `x-gateway-console` header (its CSRF guard).
 */
export type Credential = { kind: 'key'; key: string } | { kind: 'session' };

function authHeaders(credential: Credential): Record<string, string> {
  return credential.kind === 'key' ? { authorization: `Bearer ${credential.key}` } : { 'x-gateway-console': '1' };
}

async function toError(response: Response): Promise<GatewayError> {
  let code = 'http_error';
  let message = `The gateway answered ${response.status}.`;
  let current: unknown;
  try {
    const body = (await response.json()) as { error?: { code?: unknown; message?: unknown }; current?: unknown };
    if (typeof body.error?.code === 'string') code = body.error.code;
    if (typeof body.error?.message === 'string') message = body.error.message;
    current = body.current;
  } catch {
    // Not the gateway's JSON envelope (a proxy's page, say): the status alone must do.
  }
  return new GatewayError(response.status, code, message, current);
}

/** One call to the gateway; the answer as text-only JSON, or a GatewayError carrying the gateway's own message. */
export async function request(
  credential: Credential,
  path: string,
  options: { method?: 'GET' | 'POST'; body?: unknown } = {},
): Promise<Response> {
  const headers: Record<string, string> = authHeaders(credential);
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      cache: 'no-store',
      credentials: 'same-origin',
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
  } catch {
    throw new GatewayError(0, 'network_error', 'The gateway could not be reached. Check the connection and retry.');
  }
  if (!response.ok) throw await toError(response);
  return response;
}

export async function callJson<Answer>(
  credential: Credential,
  path: string,
  options: { method?: 'GET' | 'POST'; body?: unknown } = {},
): Promise<Answer> {
  return (await (await request(credential, path, options)).json()) as Answer;
}

/** An admin API path with its query; empty values are left out. */
export function adminPath(path: string, query: Record<string, string | number | null | undefined> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== null && value !== undefined && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return `/admin/v1${path}${text ? `?${text}` : ''}`;
}

/** The SSO state (§B of the contract); until the gateway serves it (404), SSO is simply off. */
export async function readSession(): Promise<SessionAnswer> {
  const signedOut: SessionAnswer = { sso: { enabled: false }, signedIn: false };
  try {
    const response = await fetch('/app/auth/session', {
      credentials: 'same-origin',
      headers: { 'x-gateway-console': '1' },
      cache: 'no-store',
    });
    if (!response.ok) return signedOut;
    return (await response.json()) as SessionAnswer;
  } catch {
    return signedOut;
  }
}

export async function signOutSession(): Promise<void> {
  await fetch('/app/auth/logout', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'x-gateway-console': '1' },
  }).catch(() => undefined);
}

/** Downloads a file through a request that carries the credential in a header; a blob URL carries only the file. */
export async function download(credential: Credential, path: string, fallbackName: string): Promise<void> {
  const response = await request(credential, path);
  const disposition = response.headers.get('content-disposition') ?? '';
  const fileName = /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
