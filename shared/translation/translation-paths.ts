import { clientWiresServedBy } from '../catalog/known-models.ts';
import type { ClientWire, UpstreamWire } from '../wires/wire-names.ts';

/** One translation step, from the wire nearer the client to the wire nearer the upstream. */
export type TranslationHop = 'responses-to-chat' | 'chat-to-messages';

/**
 * How a client wire reaches a connection's wire: `[]` when they are the same (pass-through), the translation
 * hops where the gateway translates (chat is the hub: Responses reach chat, chat reaches messages), undefined
 * where there is no way.
 */
export function translationHops(client: ClientWire, upstream: UpstreamWire): TranslationHop[] | undefined {
  if (clientWiresServedBy(upstream).includes(client)) return [];
  switch (upstream) {
    case 'openai-chat':
      return client === 'openai-responses' ? ['responses-to-chat'] : undefined;
    case 'anthropic-messages':
      if (client === 'openai-chat') return ['chat-to-messages'];
      return client === 'openai-responses' ? ['responses-to-chat', 'chat-to-messages'] : undefined;
    case 'openai-responses':
    case 'gemini':
      return undefined;
    default: {
      const unknownWire: never = upstream;
      throw new Error(`unknown upstream wire ${String(unknownWire)}`);
    }
  }
}
