import * as z from '../../validation/zod.ts';

/**
 * `thinking_blocks`: the gateway's extension of the chat format for a model whose upstream signs its reasoning (the
 * K2.7 route). It is the field LiteLLM standardised and its SDK, its proxy and the agent frameworks built on it
 * read and send back: a list of the messages format's own reasoning blocks, unchanged —
 * `{type: "thinking", thinking, signature}` and `{type: "redacted_thinking", data}` — on the assistant message of
 * an answer, and on the assistant message a client sends back on the next turn, where they go upstream exactly as
 * they came, before the turn's tool calls. `reasoning_content` still carries the reasoning as text beside it.
 *
 * In a stream the whole list comes once, in the chunk that carries `finish_reason`: whether a client's stream
 * accumulator appends such a field (LiteLLM) or replaces it (the openai SDK's helper), it ends up with every block.
 * https://docs.litellm.ai/docs/reasoning_content
 */
export const chatThinkingBlockSchema = z.union([
  z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.nullish(z.string()) }),
  z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() }),
]);

export const chatThinkingBlocksSchema = z.nullish(z.array(chatThinkingBlockSchema));

export type ChatThinkingBlockIn = z.infer<typeof chatThinkingBlockSchema>;

/** A block as the gateway writes it. */
export type ChatThinkingBlockOut =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

/**
 * The blocks that can go back to a signing upstream, as the gateway writes them: redacted thinking, and thinking
 * with the signature it came with (one without is reasoning text only, which `reasoning_content` carries).
 */
export function signedThinkingBlocks(
  blocks: readonly ChatThinkingBlockIn[] | null | undefined,
): ChatThinkingBlockOut[] {
  return (blocks ?? []).flatMap((block): ChatThinkingBlockOut[] => {
    if (block.type === 'redacted_thinking') return [{ type: 'redacted_thinking', data: block.data }];
    return block.signature ? [{ type: 'thinking', thinking: block.thinking, signature: block.signature }] : [];
  });
}
