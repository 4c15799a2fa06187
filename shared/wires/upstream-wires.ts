import { loadBedrockReach } from '../translation/client-reach/load-bedrock-reach.ts';
import {
  loadAnthropicMessagesUpstreamWire,
  loadGeminiUpstreamWire,
  loadOpenaiChatUpstreamWire,
  loadOpenaiResponsesUpstreamWire,
} from './load-upstream-wires.ts';
import type { UpstreamWireFormat } from './upstream-wire-format.ts';
import { type BedrockWire, isBedrockFamilyWire, type UpstreamWire } from './wire-names.ts';

const loaders: {
  readonly [Wire in Exclude<UpstreamWire, BedrockWire>]: () => Promise<UpstreamWireFormat<unknown, unknown>>;
} = {
  'openai-chat': loadOpenaiChatUpstreamWire,
  'openai-responses': loadOpenaiResponsesUpstreamWire,
  'anthropic-messages': loadAnthropicMessagesUpstreamWire,
  gemini: loadGeminiUpstreamWire,
};

/**
 * The wire module for a connection's upstream wire, imported on first use (load-upstream-wires.ts), for what works
 * with any connection (a token count, the admin API's connection test, a base URL's form); Bedrock's come with the
 * rest of Bedrock's code (shared/translation/client-reach/bedrock-reach.ts). The inference functions name only the
 * wires their client wire reaches (client-reach/).
 */
export async function upstreamWireFor(wire: UpstreamWire): Promise<UpstreamWireFormat<unknown, unknown>> {
  if (isBedrockFamilyWire(wire)) return (await loadBedrockReach()).upstreamWires[wire];
  return loaders[wire]();
}
