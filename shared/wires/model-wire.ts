import { isBedrockAnthropicModel } from './bedrock/bedrock-runtime-api.ts';
import { connectionWires, type UpstreamWire } from './wire-names.ts';

/**
 * The wire a model is called in on its connection. It is the connection's, except on Amazon Bedrock: there
 * Anthropic's models (`anthropic.…` and their inference profiles, `us.anthropic.…`) take the messages format through
 * InvokeModel, and every other model (Nova, Llama, Mistral, DeepSeek, Kimi, Qwen, gpt-oss…) Converse's, through the
 * same transport. Routing, media, token counting, translation and `connection test` all ask this, never the
 * connection's wire alone.
 */
export function upstreamWireOfModel(connectionWire: UpstreamWire, upstreamModel: string): UpstreamWire {
  return connectionWire === 'bedrock' && !isBedrockAnthropicModel(upstreamModel) ? 'bedrock-converse' : connectionWire;
}

/** Every wire a model can be called in: the connection wires, and Converse, which a Bedrock connection carries. */
export const modelWires = [...connectionWires, 'bedrock-converse'] as const satisfies readonly UpstreamWire[];
