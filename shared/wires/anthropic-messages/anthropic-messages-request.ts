import * as z from '../../validation/zod.ts';
import { outputCapSchema } from '../spend-bounds.ts';

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
  max_tokens: z.optional(outputCapSchema),
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

/*
 * The request read for a translation to another wire (`translatableMessagesRequestSchema`): strict on every part
 * it carries over, so what it cannot carry is refused by name, never dropped.
 */

/** Prompt-caching breakpoints: a hint to the vendor's cache, read so a block that carries one is still known. */
const cacheControlSchema = z.optional(z.unknown());

const textBlockSchema = z.looseObject({ type: z.literal('text'), text: z.string(), cache_control: cacheControlSchema });

const imageSourceSchema = z.union([
  z.looseObject({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
  z.looseObject({ type: z.literal('url'), url: z.string().check(z.minLength(1)) }),
]);

const imageBlockSchema = z.looseObject({
  type: z.literal('image'),
  source: imageSourceSchema,
  cache_control: cacheControlSchema,
});

const toolUseBlockSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  input: z.record(z.string(), z.unknown()),
  cache_control: cacheControlSchema,
});

const toolResultBlockSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().check(z.minLength(1)),
  content: z.optional(z.union([z.string(), z.array(z.union([textBlockSchema, imageBlockSchema]))])),
  is_error: z.optional(z.boolean()),
  cache_control: cacheControlSchema,
});

/** A thinking block as the vendor returned it; its signature proves it unchanged when it goes back. */
const thinkingBlockSchema = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.optional(z.string()),
});

const redactedThinkingBlockSchema = z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() });

const knownBlockTypes = ['text', 'image', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking'];

/**
 * Every other block (documents, search results, server tool calls and results, container uploads...), read only
 * for its type so the converter can refuse it by name. A malformed known block fails with its own problem.
 */
const otherBlockSchema = z.looseObject({
  type: z.string().check(z.refine((type) => !knownBlockTypes.includes(type), 'a known block type with wrong fields')),
});

const contentBlockSchema = z.union([
  textBlockSchema,
  imageBlockSchema,
  toolUseBlockSchema,
  toolResultBlockSchema,
  thinkingBlockSchema,
  redactedThinkingBlockSchema,
  otherBlockSchema,
]);

const turnSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(contentBlockSchema)]),
});

/** A tool the client runs: a name and an input schema (no `type`, or `custom`). */
const customToolSchema = z.looseObject({
  type: z.optional(z.literal('custom')),
  name: z.string().check(z.minLength(1)),
  description: z.optional(z.string()),
  input_schema: z.record(z.string(), z.unknown()),
  cache_control: cacheControlSchema,
});

/** Versioned tools the vendor defines (web search, bash, text editor, computer use...): read for their type, refused by name. */
const vendorToolSchema = z.looseObject({
  type: z.string().check(z.refine((type) => type !== 'custom', 'a custom tool needs a name and an input_schema')),
});

/** Read loosely and decided by the converter, so each refused form gets its own code and message. */
const toolChoiceSchema = z.looseObject({
  type: z.string(),
  name: z.optional(z.string()),
  disable_parallel_tool_use: z.optional(z.boolean()),
});

export const translatableMessagesRequestSchema = z.looseObject({
  model: modelSchema,
  messages: z.array(turnSchema).check(z.minLength(1)),
  system: z.optional(z.union([z.string(), z.array(textBlockSchema)])),
  max_tokens: z.optional(outputCapSchema),
  stream: z.optional(z.boolean()),
  temperature: z.optional(z.number().check(z.gte(0), z.lte(1))),
  top_p: z.optional(z.number().check(z.gte(0), z.lte(1))),
  top_k: z.optional(z.number()),
  stop_sequences: z.optional(z.array(z.string())),
  tools: z.optional(z.array(z.union([customToolSchema, vendorToolSchema]))),
  tool_choice: z.optional(toolChoiceSchema),
  metadata: z.optional(z.looseObject({ user_id: z.nullish(z.string()) })),
  // The model's thinking; whether it may be switched off is decided once, on the client's request.
  thinking: z.optional(z.unknown()),
  // Structured output (`format`) and the effort hint.
  output_config: z.nullish(
    z.looseObject({
      format: z.nullish(z.looseObject({ type: z.string(), schema: z.optional(z.record(z.string(), z.unknown())) })),
    }),
  ),
  // Server-held state and vendor-run features, read only to be refused by name.
  container: z.optional(z.unknown()),
  mcp_servers: z.optional(z.unknown()),
});

export type TranslatableMessagesRequest = z.infer<typeof translatableMessagesRequestSchema>;
export type MessagesTurnIn = z.infer<typeof turnSchema>;
export type MessagesContentBlockIn = z.infer<typeof contentBlockSchema>;
export type MessagesImageBlockIn = z.infer<typeof imageBlockSchema>;
export type MessagesToolResultBlockIn = z.infer<typeof toolResultBlockSchema>;
export type MessagesToolIn = z.infer<typeof customToolSchema> | z.infer<typeof vendorToolSchema>;
export type MessagesCustomToolIn = z.infer<typeof customToolSchema>;
export type MessagesToolChoiceIn = z.infer<typeof toolChoiceSchema>;

const knownBlockSet = new Set(knownBlockTypes);

export type MessagesKnownBlockIn =
  | z.infer<typeof textBlockSchema>
  | MessagesImageBlockIn
  | z.infer<typeof toolUseBlockSchema>
  | MessagesToolResultBlockIn
  | z.infer<typeof thinkingBlockSchema>
  | z.infer<typeof redactedThinkingBlockSchema>;

/** Exact by construction: `otherBlockSchema` refuses the known types. */
export function isKnownBlock(block: MessagesContentBlockIn): block is MessagesKnownBlockIn {
  return knownBlockSet.has(block.type);
}

/** Exact by construction: `vendorToolSchema` refuses `custom`, and only custom tools may leave the type out. */
export function isCustomTool(tool: MessagesToolIn): tool is MessagesCustomToolIn {
  return tool.type === undefined || tool.type === 'custom';
}

/*
 * The written form: what a translation from another wire produces, typed so a wrong block cannot be built.
 */

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
 * The model's reasoning on an earlier turn. With its `signature` it goes back exactly as the upstream gave it
 * (a strict messages-format upstream checks it in a tool loop); without one it is reasoning a chat client sent
 * back as `reasoning_content`, which compatible engines of the K2.7 route read.
 */
export type MessagesThinkingBlock = {
  type: 'thinking';
  thinking: string;
  signature?: string;
};

/** Reasoning the upstream returned encrypted: it goes back as it came. */
export type MessagesRedactedThinkingBlock = {
  type: 'redacted_thinking';
  data: string;
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
export type MessagesAssistantBlock =
  | MessagesThinkingBlock
  | MessagesRedactedThinkingBlock
  | MessagesTextBlock
  | MessagesToolUseBlock;

export type MessagesTurn =
  | { role: 'user'; content: MessagesUserBlock[] }
  | { role: 'assistant'; content: MessagesAssistantBlock[] };

export type MessagesTool = {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
};

/**
 * Every choice the format has. A model in thinking mode refuses the forced ones (`any`, `tool`): that rule is
 * applied once, to the request in this form, whichever route wrote it (thinking-mode.ts).
 */
export type MessagesToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export type MessagesThinking = { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' };

export type MessagesRequestOut = {
  model: string;
  max_tokens: number;
  messages: MessagesTurn[];
  system?: MessagesTextBlock[];
  /** The client's own choice, where it made one; a model that requires thinking gets it turned on later. */
  thinking?: unknown;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  stream?: boolean;
  tools?: MessagesTool[];
  tool_choice?: MessagesToolChoice;
};
