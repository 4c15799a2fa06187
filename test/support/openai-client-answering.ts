import OpenAI from 'openai';

/** A response whose body arrives in small pieces, as over a network, so the SDK's own SSE decoder re-frames it. */
export function sseResponse(text: string, pieceSize = 29): Response {
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let start = 0; start < bytes.length; start += pieceSize) {
        controller.enqueue(bytes.slice(start, start + pieceSize));
      }
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

/** The official client, answered by the given response instead of a server: what a gateway client would parse. */
export function clientAnswering(answer: () => Response): OpenAI {
  return new OpenAI({
    apiKey: 'sk-gateway-test',
    baseURL: 'http://localhost/v1',
    maxRetries: 0,
    fetch: async () => answer(),
  });
}
