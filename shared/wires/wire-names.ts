/**
 * The wire formats the gateway speaks. A client wire is what a caller sends; an upstream wire is what a
 * connection speaks. They share names so that "same wire in and out" is a plain equality.
 */
export const upstreamWires = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'] as const;
export type UpstreamWire = (typeof upstreamWires)[number];

export const clientWires = [
  'openai-chat',
  'openai-responses',
  'anthropic-messages',
  'anthropic-count-tokens',
  'gemini',
  'models',
] as const;
export type ClientWire = (typeof clientWires)[number];

/** Which error envelope a client wire expects. */
export type ErrorEnvelope = 'openai' | 'anthropic' | 'gemini';

export function errorEnvelopeFor(wire: ClientWire | 'admin' | 'usage'): ErrorEnvelope {
  switch (wire) {
    case 'anthropic-messages':
    case 'anthropic-count-tokens':
      return 'anthropic';
    case 'gemini':
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
