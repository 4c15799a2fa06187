import * as z from '../../validation/zod.ts';
import {
  type ChatThinkingBlockOut,
  chatThinkingBlockSchema,
  signedThinkingBlocks,
} from '../../wires/openai-chat/openai-chat-thinking-blocks.ts';

/**
 * The gateway's form of a reasoning item's `encrypted_content` on a translated route: the model's reasoning, kept
 * by the client rather than by the gateway, which stores no conversations. A client that sends the item back (Codex
 * CLI does, with `store: false` and `include: ["reasoning.encrypted_content"]`) gives the reasoning back to the
 * upstream exactly as the model wrote it: its text as chat `reasoning_content`, and where the upstream signed it (the
 * K2.7 route) its blocks, signatures and redacted thinking included, unchanged as chat `thinking_blocks`
 * (openai-chat-thinking-blocks.ts), which the messages route sends back as they came, so a strict upstream's tool
 * loop goes on.
 *
 * It is an encoding, not encryption: the text is the client's own answer, and the gateway has nothing to hide in
 * it or to prove with it (the signatures are the upstream's, which checks them). A value in any other form (the
 * vendor's own encrypted state, from a native connection) means nothing to a chat upstream and is not read.
 */

/** Every value of the gateway's form begins with it; no vendor's encrypted reasoning does. */
export const reasoningStatePrefix = 'gateway-reasoning.v1.';

export interface ReasoningState {
  /** The reasoning as the model wrote it (chat `reasoning_content`). */
  text: string;
  /** The upstream's signed and redacted reasoning blocks, as they came (chat `thinking_blocks`); absent when none. */
  thinkingBlocks?: ChatThinkingBlockOut[];
}

const stateSchema = z.object({
  text: z.string(),
  thinkingBlocks: z.optional(z.array(chatThinkingBlockSchema)),
});

export function encodeReasoningState(state: ReasoningState): string {
  const written = state.thinkingBlocks?.length ? state : { text: state.text };
  return reasoningStatePrefix + Buffer.from(JSON.stringify(written), 'utf8').toString('base64url');
}

/** Whether a value is in the gateway's form (whatever it holds): the gateway made it, no upstream did. */
export function isGatewayReasoningState(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(reasoningStatePrefix);
}

/** The state a value of the gateway's form holds; undefined for anything else, never an error. */
export function decodeReasoningState(value: string | null | undefined): ReasoningState | undefined {
  if (!isGatewayReasoningState(value)) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(value.slice(reasoningStatePrefix.length), 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = stateSchema.safeParse(decoded);
  if (!parsed.success) return undefined;
  const blocks = signedThinkingBlocks(parsed.data.thinkingBlocks);
  return blocks.length > 0 ? { text: parsed.data.text, thinkingBlocks: blocks } : { text: parsed.data.text };
}
