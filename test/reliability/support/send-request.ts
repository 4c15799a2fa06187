import { type Agent, request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * Sends exact bytes and headers (Node's client, so header values are limited to what HTTP allows; the raw
 * socket cases cover the rest) and reads the whole answer, streamed or not.
 */
export function sendRequest(
  agent: Agent,
  baseUrl: string,
  input: { method?: string; path: string; headers: Record<string, string>; body?: Buffer },
): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        method: input.method ?? 'POST',
        path: input.path,
        agent,
        headers: { ...input.headers, 'content-length': String(input.body?.byteLength ?? 0) },
        timeout: 30_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer to ${input.path} within 30 s`)));
    outgoing.on('error', reject);
    outgoing.end(input.body);
  });
}

/** Runs `work` over `items` with at most `concurrency` at a time. */
export async function forEachConcurrently<Item>(
  items: readonly Item[],
  concurrency: number,
  work: (item: Item, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index] as Item, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** The machine-readable code of a gateway error in any of its envelopes (OpenAI, Anthropic, Gemini). */
export function errorCodeOf(body: unknown): string | undefined {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, reason } = error as { code?: unknown; reason?: unknown };
  if (typeof code === 'string' && code.length > 0) return code;
  if (typeof reason === 'string' && reason.length > 0) return reason;
  return undefined;
}
