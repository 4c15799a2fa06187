import * as z from '../shared/validation/zod.ts';
import { AdminRequestError } from './cli-errors.ts';
import type { AdminRequest } from './command-definition.ts';

export interface AdminClientOptions {
  readonly baseUrl: URL;
  readonly adminKey?: string | undefined;
  /** A gateway session from `login`, sent as `Authorization: Session <id>` when there is no admin key. */
  readonly sessionId?: string | undefined;
  readonly fetch: typeof globalThis.fetch;
  /** A gateway that accepts the connection but never answers would otherwise hang the CLI for good. */
  readonly timeoutMs?: number;
}

const defaultTimeoutMs = 30_000;

// Tolerant: only the fields the message needs, and all of them optional beyond the message itself.
const errorEnvelope = z.object({
  error: z.object({ message: z.string(), code: z.nullish(z.string()), type: z.nullish(z.string()) }),
});

/**
 * Sends one admin request and returns the parsed JSON answer (or an export's text, when the request accepts
 * `text/csv`); every failure is an `AdminRequestError`.
 */
export async function sendAdminRequest(request: AdminRequest, options: AdminClientOptions): Promise<unknown> {
  const url = requestUrl(options.baseUrl, request);
  const headers: Record<string, string> = {
    authorization: options.adminKey ? `Bearer ${options.adminKey}` : `Session ${options.sessionId ?? ''}`,
    accept: request.accept ?? 'application/json',
  };
  if (request.body !== undefined) headers['content-type'] = 'application/json';

  let response: Response;
  let text: string;
  try {
    response = await options.fetch(url, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? defaultTimeoutMs),
    });
    text = await response.text();
  } catch (error) {
    throw new AdminRequestError(describeNetworkFailure(error, options));
  }

  if (!response.ok) throw new AdminRequestError(describeErrorAnswer(response, text));
  if (request.accept !== undefined) {
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith(request.accept)) {
      throw new AdminRequestError(
        `the gateway answered HTTP ${response.status} with ${type || 'no content type'}, not ${request.accept}`,
      );
    }
    return text;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new AdminRequestError(`the gateway answered HTTP ${response.status} with a body that is not JSON`);
  }
}

function requestUrl(baseUrl: URL, request: AdminRequest): URL {
  const url = new URL(baseUrl);
  // Joined rather than resolved, so a GATEWAY_URL with a path (behind a proxy) keeps that path.
  url.pathname = `${baseUrl.pathname.replace(/\/+$/, '')}${request.path}`;
  url.search = new URLSearchParams(request.query).toString();
  url.hash = '';
  return url;
}

function describeNetworkFailure(error: unknown, options: AdminClientOptions): string {
  const where = `the gateway at ${options.baseUrl.origin} (GATEWAY_URL)`;
  if (error instanceof Error && error.name === 'TimeoutError') {
    return `no answer from ${where} within ${Math.round((options.timeoutMs ?? defaultTimeoutMs) / 1000)} s`;
  }
  return `cannot reach ${where}: ${networkReason(error)}`;
}

/** fetch reports "fetch failed" and keeps the useful part (ECONNREFUSED, ENOTFOUND, ...) in `cause`. */
function networkReason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  for (const candidate of [cause, error]) {
    if (!(candidate instanceof Error)) continue;
    if (candidate.message !== '') return candidate.message;
    // Happy-eyeballs failures arrive as an AggregateError with an empty message but a code.
    if ('code' in candidate && typeof candidate.code === 'string') return candidate.code;
  }
  return String(error);
}

function describeErrorAnswer(response: Response, text: string): string {
  const parsed = errorEnvelope.safeParse(parseJsonOrUndefined(text));
  if (parsed.success) {
    const { code, type } = parsed.data.error;
    // Errors are promised as one line on stderr, whatever the server put in its message.
    const message = parsed.data.error.message.replace(/\s*\n\s*/g, ' ');
    return `${message} (code: ${code ?? type ?? 'none'}, HTTP ${response.status})`;
  }
  const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  return `the gateway answered HTTP ${response.status} ${response.statusText}`.trim() + (excerpt ? `: ${excerpt}` : '');
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
