/**
 * The wire formats the gateway speaks. A client wire is what a caller sends; an upstream wire is what a
 * connection speaks. They share names so that "same wire in and out" is a plain equality.
 */
export const upstreamWires = [
  'openai-chat',
  'openai-responses',
  'anthropic-messages',
  'gemini',
  'bedrock-converse',
  'bedrock',
] as const;
export type UpstreamWire = (typeof upstreamWires)[number];

/**
 * Amazon Bedrock's wires (`bedrock`, `bedrock-…`). Their code — the formats, SigV4 signing, the event-stream codec
 * and the hops that lead to them — is loaded on a process's first Bedrock request, not at a function's cold start
 * (shared/translation/client-reach/bedrock-reach.ts).
 */
export type BedrockWire = Extract<UpstreamWire, 'bedrock' | `bedrock-${string}`>;

export function isBedrockFamilyWire(wire: UpstreamWire): wire is BedrockWire {
  return wire === 'bedrock' || wire.startsWith('bedrock-');
}

/**
 * The wires a connection can be created with. Bedrock's Converse is a format only the Bedrock transport (SigV4
 * signing, the binary event stream) can carry, so it is not one on its own: a `bedrock` connection carries it.
 */
export const connectionWires = [
  'openai-chat',
  'openai-responses',
  'anthropic-messages',
  'gemini',
  'bedrock',
] as const satisfies readonly UpstreamWire[];
export type ConnectionWire = (typeof connectionWires)[number];

/**
 * The format of the bodies and events a connection's wire carries. Amazon Bedrock's runtime (`bedrock`) serves
 * Anthropic's models in the messages format — the same body, its events in AWS's binary framing, signed with
 * SigV4 — so every question of format (what is a pass-through, which hop reaches it, which media it carries) is
 * answered for `anthropic-messages`; only addressing, signing and framing are Bedrock's own.
 */
export function formatOfWire(wire: UpstreamWire): Exclude<UpstreamWire, 'bedrock'> {
  return wire === 'bedrock' ? 'anthropic-messages' : wire;
}

export const clientWires = [
  'openai-chat',
  'openai-responses',
  'anthropic-messages',
  'anthropic-count-tokens',
  'gemini',
  'gemini-count-tokens',
  'models',
  'gemini-models',
] as const;
export type ClientWire = (typeof clientWires)[number];

/** Which client wires a connection's upstream wire can serve without translation. */
export function clientWiresServedBy(wire: UpstreamWire): ClientWire[] {
  const format = formatOfWire(wire);
  switch (format) {
    case 'openai-chat':
      return ['openai-chat'];
    case 'openai-responses':
      return ['openai-responses'];
    case 'anthropic-messages':
      return ['anthropic-messages', 'anthropic-count-tokens'];
    case 'gemini':
      return ['gemini'];
    // No client speaks Converse: every client reaches it through the chat hub.
    case 'bedrock-converse':
      return [];
    default: {
      const unknownWire: never = format;
      throw new Error(`unknown wire ${String(unknownWire)}`);
    }
  }
}

/** Which error envelope a client wire expects. */
export type ErrorEnvelope = 'openai' | 'anthropic' | 'gemini';

export function errorEnvelopeFor(wire: ClientWire | 'admin' | 'usage'): ErrorEnvelope {
  switch (wire) {
    case 'anthropic-messages':
    case 'anthropic-count-tokens':
      return 'anthropic';
    case 'gemini':
    case 'gemini-count-tokens':
    case 'gemini-models':
      return 'gemini';
    case 'openai-chat':
    case 'openai-responses':
    case 'models':
    case 'admin':
    case 'usage':
      return 'openai';
    default: {
      const unknownWire: never = wire;
      throw new Error(`no error envelope for ${String(unknownWire)}`);
    }
  }
}

/**
 * Google's API lives under `/v1beta`; a path there (also under an upstream prefix) is a generate-content client's.
 * Its stable API shares `/v1` with OpenAI's: there a path no route answers that ends in a method (`:embedContent`;
 * Google's are lowerCamelCase) is Google's. (A model read such as `/v1/models/ollama/llama3:latest` is a route and
 * answers in its own envelope.)
 */
const generateContentPaths = [/^(\/[^/]+)?\/v1beta(\/|$)/, /^(\/[^/]+)?\/v1\/.+:[a-z][A-Za-z]*$/];

/**
 * The envelope of a request no route answers (an unknown path, another method, a refusal before routing): the one
 * its client parses, told by the path (`/v1beta`, or a `/v1` path ending in a method: generate-content) or by the
 * `anthropic-version` header every messages SDK sends; OpenAI's otherwise.
 */
export function errorEnvelopeOfRequest(path: string, headers: Readonly<Record<string, unknown>>): ErrorEnvelope {
  if (generateContentPaths.some((pattern) => pattern.test(path))) return 'gemini';
  if (headers['anthropic-version'] !== undefined) return 'anthropic';
  return 'openai';
}
