import * as z from '../../validation/zod.ts';
import { answerCountSchema, outputCapSchema } from '../spend-bounds.ts';
import type { ChatToolCallOut } from './openai-chat-answer.ts';
import { type ChatThinkingBlockOut, chatThinkingBlocksSchema } from './openai-chat-thinking-blocks.ts';

/**
 * The Chat Completions request, read two ways. Every route reads the envelope, `chatRequestSchema`: strict on the
 * fields the pipeline reads, open (`z.looseObject`) everywhere else, because a pass-through must let fields and
 * parts the gateway does not know reach the provider. A translation to another wire reads every part with
 * `translatableChatRequestSchema`: strict on what it carries over, so what it cannot carry is refused by name.
 * The written form, `ChatRequestOut`, is what a translation from another wire produces.
 * https://platform.openai.com/docs/api-reference/chat/create
 */

const outputCap = z.nullish(outputCapSchema);
const answerCount = z.nullish(answerCountSchema);

const envelopeMessageSchema = z.looseObject({
  role: z.string().check(z.minLength(1)),
  content: z.optional(z.union([z.string(), z.array(z.unknown()), z.null()])),
});

export const chatRequestSchema = z.looseObject({
  model: z.string().check(z.minLength(1), z.maxLength(256)),
  messages: z.array(envelopeMessageSchema).check(z.minLength(1)),
  stream: z.optional(z.boolean()),
  stream_options: z.nullish(z.looseObject({ include_usage: z.optional(z.boolean()) })),
  max_tokens: outputCap,
  max_completion_tokens: outputCap,
  // How many answers: each may be as long as the output cap (openai-chat-spend-bounds.ts).
  n: answerCount,
  tools: z.optional(z.array(z.unknown())),
  tool_choice: z.optional(z.unknown()),
  web_search_options: z.optional(z.unknown()),
});

export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** `stream_options.include_usage`: the client asked for the usage chunk at the end of the stream. */
export function includesUsage(request: ChatRequest): boolean {
  return request.stream_options?.include_usage === true;
}

const textPartSchema = z.looseObject({ type: z.literal('text'), text: z.string() });

const imagePartSchema = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: z.string().check(z.minLength(1)) }),
});

/** Parts the chat wire allows that other wires cannot take from it; a translator refuses them by name. */
const untranslatablePartSchema = z.looseObject({ type: z.enum(['input_audio', 'file', 'video_url']) });

const refusalPartSchema = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

const userPartSchema = z.discriminatedUnion('type', [textPartSchema, imagePartSchema, untranslatablePartSchema]);
const assistantPartSchema = z.discriminatedUnion('type', [textPartSchema, refusalPartSchema]);

const textContentSchema = z.union([z.string(), z.array(textPartSchema)]);

const toolCallSchema = z.looseObject({
  id: z.string().check(z.minLength(1)),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string().check(z.minLength(1)), arguments: z.string() }),
});

const systemMessageSchema = z.looseObject({ role: z.enum(['system', 'developer']), content: textContentSchema });

const userMessageSchema = z.looseObject({
  role: z.literal('user'),
  content: z.union([z.string(), z.array(userPartSchema)]),
});

const assistantMessageSchema = z.looseObject({
  role: z.literal('assistant'),
  content: z.nullish(z.union([z.string(), z.array(assistantPartSchema)])),
  refusal: z.nullish(z.string()),
  tool_calls: z.nullish(z.array(toolCallSchema)),
  // DeepSeek-type APIs return the model's reasoning here, and clients send it back on later turns.
  reasoning_content: z.nullish(z.string()),
  // The reasoning blocks of a signing upstream, sent back unchanged (openai-chat-thinking-blocks.ts).
  thinking_blocks: chatThinkingBlocksSchema,
  // The deprecated single-function form; refused by translators so a conversation never loses a call.
  function_call: z.optional(z.unknown()),
});

const toolMessageSchema = z.looseObject({
  role: z.literal('tool'),
  tool_call_id: z.string().check(z.minLength(1)),
  content: textContentSchema,
});

const messageSchema = z.discriminatedUnion('role', [
  systemMessageSchema,
  userMessageSchema,
  assistantMessageSchema,
  toolMessageSchema,
]);

const functionToolSchema = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().check(z.minLength(1)),
    description: z.nullish(z.string()),
    parameters: z.nullish(z.record(z.string(), z.unknown())),
  }),
});

/** Read loosely and decided by the translator, so each refused form gets its own code and message. */
const toolChoiceSchema = z.union([z.string(), z.looseObject({ type: z.string() })]);

export const translatableChatRequestSchema = z.looseObject({
  model: z.string().check(z.minLength(1)),
  messages: z.array(messageSchema).check(z.minLength(1)),
  stream: z.nullish(z.boolean()),
  max_tokens: outputCap,
  max_completion_tokens: outputCap,
  temperature: z.nullish(z.number().check(z.nonnegative())),
  top_p: z.nullish(z.number().check(z.gte(0), z.lte(1))),
  stop: z.nullish(z.union([z.string(), z.array(z.string())])),
  tools: z.nullish(z.array(functionToolSchema)),
  tool_choice: z.nullish(toolChoiceSchema),
  parallel_tool_calls: z.nullish(z.boolean()),
  n: answerCount,
  logprobs: z.nullish(z.boolean()),
  response_format: z.nullish(z.looseObject({ type: z.string() })),
  // The model's thinking as messages-style clients choose it; read and decided by the translator.
  thinking: z.optional(z.unknown()),
});

export type TranslatableChatRequest = z.infer<typeof translatableChatRequestSchema>;
export type ChatMessage = z.infer<typeof messageSchema>;
export type ChatUserPart = z.infer<typeof userPartSchema>;
export type ChatAssistantPart = z.infer<typeof assistantPartSchema>;
export type ChatTextContent = z.infer<typeof textContentSchema>;
export type ChatToolCall = z.infer<typeof toolCallSchema>;
export type ChatFunctionTool = z.infer<typeof functionToolSchema>;
export type ChatToolChoice = z.infer<typeof toolChoiceSchema>;

/*
 * The written form. Type aliases rather than interfaces, so a request built as `ChatRequestOut` is also a
 * `ChatRequest`, the envelope every later stage reads.
 */

export type ChatTextPartOut = { type: 'text'; text: string };

/** An image as a URL: inline (`data:`) or remote. */
export type ChatImagePartOut = { type: 'image_url'; image_url: { url: string; detail?: string } };

/**
 * A video as a URL, inline (`data:video/mp4;base64,…`) or remote: the part the alpha family's chat route, vLLM and
 * other engines that take video read. https://platform.kimi.ai/docs/api/chat
 */
export type ChatVideoPartOut = { type: 'video_url'; video_url: { url: string } };

/** What a user message may hold beside text. */
export type ChatMediaPartOut = ChatImagePartOut | ChatVideoPartOut;

export type ChatSystemMessageOut = { role: 'system'; content: string | ChatTextPartOut[] };

export type ChatUserMessageOut = { role: 'user'; content: string | (ChatTextPartOut | ChatMediaPartOut)[] };

/**
 * An assistant turn: its text, the tool calls it made (each call's result follows as a `tool` message), and the
 * model's earlier reasoning — `reasoning_content` as DeepSeek-type APIs take it back (and the messages route turns
 * into a thinking block), `thinking_blocks` signed and unchanged (openai-chat-thinking-blocks.ts).
 */
export type ChatAssistantMessageOut = {
  role: 'assistant';
  content: string | ChatTextPartOut[] | null;
  reasoning_content?: string;
  thinking_blocks?: ChatThinkingBlockOut[];
  tool_calls?: ChatToolCallOut[];
};

export type ChatToolMessageOut = { role: 'tool'; tool_call_id: string; content: string | ChatTextPartOut[] };

/** Only the roles every compatible upstream knows: `developer` is sent as `system`. */
export type ChatMessageOut = ChatSystemMessageOut | ChatUserMessageOut | ChatAssistantMessageOut | ChatToolMessageOut;

export type ChatToolOut = {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
};

export type ChatToolChoiceOut = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export type ChatResponseFormatOut =
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; schema: Record<string, unknown>; description?: string; strict?: boolean };
    };

/**
 * The output cap is not among these fields: the upstream wire writes it, in the field its host reads
 * (openai-chat-spend-bounds.ts).
 */
export type ChatRequestOut = {
  model: string;
  messages: ChatMessageOut[];
  stream?: boolean;
  /** Always asked for when streaming: the usage chunk is where a chat stream reports usage. */
  stream_options?: { include_usage: true };
  stop?: string[];
  temperature?: number;
  top_p?: number;
  reasoning_effort?: string;
  verbosity?: string;
  tools?: ChatToolOut[];
  tool_choice?: ChatToolChoiceOut;
  parallel_tool_calls?: boolean;
  response_format?: ChatResponseFormatOut;
  user?: string;
  safety_identifier?: string;
  prompt_cache_key?: string;
  service_tier?: string;
};
