import * as z from '../../validation/zod.ts';

/**
 * The Responses request, read two ways. Every route reads the envelope, `responsesRequestSchema`: strict on the
 * fields the pipeline reads, open (`z.looseObject`) for the rest, which reach the provider untouched. `input` may
 * be left out when a request continues a stored response or uses a prompt template, so it is only checked for
 * its shape there. A translation to another wire reads the input items, tools and tool choice with
 * `translatableResponsesRequestSchema`: strict on the fields it reads, `z.looseObject` for objects because
 * clients send fields (`id`, `status`, `strict`, vendor extensions) that it may ignore.
 * https://platform.openai.com/docs/api-reference/responses/create
 */

const outputCapSchema = z.nullish(z.number().check(z.int(), z.positive()));

export const responsesRequestSchema = z.looseObject({
  model: z.string().check(z.minLength(1), z.maxLength(256)),
  input: z.optional(z.union([z.string(), z.array(z.unknown())])),
  stream: z.nullish(z.boolean()),
  max_output_tokens: outputCapSchema,
  tools: z.optional(z.array(z.unknown())),
  prompt: z.optional(z.unknown()),
});

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;

/** `output_text` is how a previous answer's text comes back when a client resends it as history. */
const textPartSchema = z.looseObject({ type: z.enum(['input_text', 'output_text']), text: z.string() });

const refusalPartSchema = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

/** Parts the Responses wire allows but a chat upstream cannot take from this route; refused by name. */
const untranslatablePartSchema = z.looseObject({ type: z.enum(['input_image', 'input_file', 'input_audio']) });

const contentPartSchema = z.discriminatedUnion('type', [textPartSchema, refusalPartSchema, untranslatablePartSchema]);

/** The "easy" input message (`{role, content}`) and the full one (`type: "message"`, as the SDK types it). */
const messageItemSchema = z.looseObject({
  type: z.optional(z.literal('message')),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(contentPartSchema)]),
});

/**
 * Every other item type (function calls and their outputs, item references, reasoning, hosted tool calls...),
 * read only for its type so the converter can refuse it by name. `message` is excluded so that a malformed
 * message fails validation with its own problem instead of being taken for another item.
 */
const otherItemSchema = z.looseObject({
  type: z.string().check(z.refine((type) => type !== 'message', 'a message item needs a role and content')),
});

const inputItemSchema = z.union([messageItemSchema, otherItemSchema]);

const functionToolSchema = z.looseObject({
  type: z.literal('function'),
  name: z.string().check(z.minLength(1)),
  description: z.nullish(z.string()),
  parameters: z.nullish(z.record(z.string(), z.unknown())),
  strict: z.nullish(z.boolean()),
});

/** Hosted tools (`web_search`, `file_search`, `mcp`, `custom`...): read for their type, refused by name. */
const otherToolSchema = z.looseObject({
  type: z.string().check(z.refine((type) => type !== 'function', 'a function tool needs a name')),
});

/** Read loosely and decided by the converter, so each refused form gets its own code and message. */
const toolChoiceSchema = z.union([z.string(), z.looseObject({ type: z.string(), name: z.nullish(z.string()) })]);

/** `text.format`: structured output. https://platform.openai.com/docs/guides/structured-outputs */
const textFormatSchema = z.looseObject({
  type: z.string(),
  name: z.nullish(z.string()),
  description: z.nullish(z.string()),
  schema: z.nullish(z.record(z.string(), z.unknown())),
  strict: z.nullish(z.boolean()),
});

export const translatableResponsesRequestSchema = z.looseObject({
  model: z.string().check(z.minLength(1)),
  // Optional here because a stored-state request may leave it out; the converter refuses those first.
  input: z.optional(z.union([z.string(), z.array(inputItemSchema)])),
  instructions: z.nullish(z.string()),
  stream: z.nullish(z.boolean()),
  max_output_tokens: outputCapSchema,
  temperature: z.nullish(z.number().check(z.nonnegative())),
  top_p: z.nullish(z.number().check(z.gte(0), z.lte(1))),
  // The effort's allowed values are the catalog's, checked where the chat body is prepared for the route.
  reasoning: z.nullish(z.looseObject({ effort: z.nullish(z.string()) })),
  tools: z.nullish(z.array(z.union([functionToolSchema, otherToolSchema]))),
  tool_choice: z.nullish(toolChoiceSchema),
  parallel_tool_calls: z.nullish(z.boolean()),
  text: z.nullish(z.looseObject({ format: z.nullish(textFormatSchema) })),
  metadata: z.nullish(z.record(z.string(), z.string())),
  // Server-stored state, read only to be refused (see `refuseStoredState`).
  previous_response_id: z.nullish(z.string()),
  conversation: z.optional(z.unknown()),
  prompt: z.optional(z.unknown()),
  background: z.nullish(z.boolean()),
});

export type TranslatableResponsesRequest = z.infer<typeof translatableResponsesRequestSchema>;
export type ResponsesInputItem = z.infer<typeof inputItemSchema>;
export type ResponsesMessageItem = z.infer<typeof messageItemSchema>;
export type ResponsesContentPart = z.infer<typeof contentPartSchema>;
export type ResponsesTool = z.infer<typeof functionToolSchema> | z.infer<typeof otherToolSchema>;
export type ResponsesFunctionTool = z.infer<typeof functionToolSchema>;
export type ResponsesToolChoiceInput = z.infer<typeof toolChoiceSchema>;
export type ResponsesTextFormat = z.infer<typeof textFormatSchema>;

/** Exact by construction: `otherItemSchema` refuses the type `message`, and only messages may leave it out. */
export function isMessageItem(item: ResponsesInputItem): item is ResponsesMessageItem {
  return item.type === undefined || item.type === 'message';
}

/** Exact by construction: `otherToolSchema` refuses the type `function`. */
export function isFunctionTool(tool: ResponsesTool): tool is ResponsesFunctionTool {
  return tool.type === 'function';
}
