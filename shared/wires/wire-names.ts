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
] as const;
export type UpstreamWire = (typeof upstreamWires)[number];

/**
 * The wires a connection can be created with. Bedrock's Converse is a format only the Bedrock transport (SigV4
 * signing, the binary event stream) can carry, so it is not one on its own until that transport offers it.
 */
export const connectionWires = [
  'openai-chat',
  'openai-responses',
  'anthropic-messages',
  'gemini',
] as const satisfies readonly UpstreamWire[];
export type ConnectionWire = (typeof connectionWires)[number];

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
  switch (wire) {
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
      const unknownWire: never = wire;
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

/** Google's API lives under `/v1beta`; a path there (also under an upstream prefix) is a generate-content client's. */
const generateContentPath = /^(\/[^/]+)?\/v1beta(\/|$)/;

/**
 * The envelope of a request no route answers (an unknown path, another method, a refusal before routing): the one
 * its client parses, told by the path (`/v1beta`: generate-content) or by the `anthropic-version` header every
 * messages SDK sends; OpenAI's otherwise.
 */
export function errorEnvelopeOfRequest(path: string, headers: Readonly<Record<string, unknown>>): ErrorEnvelope {
  if (generateContentPath.test(path)) return 'gemini';
  if (headers['anthropic-version'] !== undefined) return 'anthropic';
  return 'openai';
}
