import * as z from '../../validation/zod.ts';

/**
 * The Messages request. Read as clients send it (`messagesRequestSchema`): strict on the fields the gateway
 * reads, open (`z.looseObject`) for the rest, which reach the provider untouched. `max_tokens` is required by the
 * vendor but not by every compatible engine, so a client may leave it out: the output allowance is sent in its
 * place (anthropic-messages-spend-bounds.ts). Written
 * (`MessagesRequestOut` and its blocks) as a translation from another wire produces it: only the shapes it
 * produces, typed so a wrong block cannot be built.
 * https://docs.anthropic.com/en/api/messages
 */

const modelSchema = z.string().check(z.minLength(1), z.maxLength(256));

export const messagesRequestSchema = z.looseObject({
  model: modelSchema,
  messages: z
    .array(
      z.looseObject({ role: z.string().check(z.minLength(1)), content: z.union([z.string(), z.array(z.unknown())]) }),
    )
    .check(z.minLength(1)),
  max_tokens: z.optional(z.number().check(z.int(), z.positive())),
  stream: z.optional(z.boolean()),
  tools: z.optional(z.array(z.unknown())),
  mcp_servers: z.optional(z.unknown()),
});

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;

/**
 * The token-count request: the Messages request without `max_tokens` and `stream`. Only `model` and `messages`
 * are read; the rest (system, tools, thinking, ...) reaches the provider untouched.
 * https://docs.anthropic.com/en/api/messages-count-tokens
 */
export const countTokensRequestSchema = z.looseObject({
  model: modelSchema,
  messages: z.array(z.looseObject({ role: z.string().check(z.minLength(1)) })).check(z.minLength(1)),
});

export type CountTokensRequest = z.infer<typeof countTokensRequestSchema>;

export type MessagesTextBlock = {
  type: 'text';
  text: string;
};

export type MessagesImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export type MessagesImageBlock = {
  type: 'image';
  source: MessagesImageSource;
};

/**
 * Reasoning a chat client sent back as `reasoning_content`. It carries no signature: a chat client never saw
 * one, and compatible engines of the K2.7 route check that earlier tool-call turns carry their reasoning.
 */
export type MessagesThinkingBlock = {
  type: 'thinking';
  thinking: string;
};

export type MessagesToolUseBlock = {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
};

export type MessagesToolResultBlock = {
  type: 'tool_result';
  tool_use_id: string;
  content: string | MessagesTextBlock[];
};

export type MessagesUserBlock = MessagesTextBlock | MessagesImageBlock | MessagesToolResultBlock;
export type MessagesAssistantBlock = MessagesThinkingBlock | MessagesTextBlock | MessagesToolUseBlock;

export type MessagesTurn =
  | { role: 'user'; content: MessagesUserBlock[] }
  | { role: 'assistant'; content: MessagesAssistantBlock[] };

export type MessagesTool = {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
};

/** Only the choices K2.7 thinking mode accepts: forced forms (`any`, `tool`) are refused before this point. */
export type MessagesToolChoice = { type: 'auto'; disable_parallel_tool_use?: boolean } | { type: 'none' };

export type MessagesThinking = { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' };

export type MessagesRequestOut = {
  model: string;
  max_tokens: number;
  messages: MessagesTurn[];
  system?: MessagesTextBlock[];
  thinking: MessagesThinking;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  stream?: boolean;
  tools?: MessagesTool[];
  tool_choice?: MessagesToolChoice;
};
