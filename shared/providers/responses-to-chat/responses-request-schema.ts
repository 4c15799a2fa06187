import * as z from 'zod';

/**
 * The Responses request as the translator reads it. The pipeline's own schema only checks what every route
 * needs; translation reads the input items, tools and tool choice, so it checks them here: strict on the fields
 * it reads, `.loose()` on objects because clients send fields (`id`, `status`, `strict`, vendor extensions)
 * that it may ignore. https://platform.openai.com/docs/api-reference/responses/create
 */

/** `output_text` is how a previous answer's text comes back when a client resends it as history. */
const textPartSchema = z.object({ type: z.enum(['input_text', 'output_text']), text: z.string() }).loose();

const refusalPartSchema = z.object({ type: z.literal('refusal'), refusal: z.string() }).loose();

/** Parts the Responses wire allows but a chat upstream cannot take from this route; refused by name. */
const untranslatablePartSchema = z.object({ type: z.enum(['input_image', 'input_file', 'input_audio']) }).loose();

const contentPartSchema = z.discriminatedUnion('type', [textPartSchema, refusalPartSchema, untranslatablePartSchema]);

/** The "easy" input message (`{role, content}`) and the full one (`type: "message"`, as the SDK types it). */
const messageItemSchema = z
  .object({
    type: z.literal('message').optional(),
    role: z.enum(['user', 'assistant', 'system', 'developer']),
    content: z.union([z.string(), z.array(contentPartSchema)]),
  })
  .loose();

/**
 * Every other item type (function calls and their outputs, item references, reasoning, hosted tool calls...),
 * read only for its type so the converter can refuse it by name. `message` is excluded so that a malformed
 * message fails validation with its own problem instead of being taken for another item.
 */
const otherItemSchema = z
  .object({ type: z.string().refine((type) => type !== 'message', 'a message item needs a role and content') })
  .loose();

const inputItemSchema = z.union([messageItemSchema, otherItemSchema]);

const functionToolSchema = z
  .object({
    type: z.literal('function'),
    name: z.string().min(1),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  })
  .loose();

/** Hosted tools (`web_search`, `file_search`, `mcp`, `custom`...): read for their type, refused by name. */
const otherToolSchema = z
  .object({ type: z.string().refine((type) => type !== 'function', 'a function tool needs a name') })
  .loose();

/** Read loosely and decided by the converter, so each refused form gets its own code and message. */
const toolChoiceSchema = z.union([z.string(), z.object({ type: z.string(), name: z.string().nullish() }).loose()]);

/** `text.format`: structured output. https://platform.openai.com/docs/guides/structured-outputs */
const textFormatSchema = z
  .object({
    type: z.string(),
    name: z.string().nullish(),
    description: z.string().nullish(),
    schema: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  })
  .loose();

export const responsesRequestSchema = z
  .object({
    model: z.string().min(1),
    // Optional here because a stored-state request may leave it out; the converter refuses those first.
    input: z.union([z.string(), z.array(inputItemSchema)]).optional(),
    instructions: z.string().nullish(),
    stream: z.boolean().nullish(),
    max_output_tokens: z.number().int().positive().nullish(),
    temperature: z.number().nonnegative().nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    // The effort's allowed values are the catalog's, checked where the chat body is prepared for the route.
    reasoning: z.object({ effort: z.string().nullish() }).loose().nullish(),
    tools: z.array(z.union([functionToolSchema, otherToolSchema])).nullish(),
    tool_choice: toolChoiceSchema.nullish(),
    parallel_tool_calls: z.boolean().nullish(),
    text: z.object({ format: textFormatSchema.nullish() }).loose().nullish(),
    metadata: z.record(z.string(), z.string()).nullish(),
    // Server-stored state, read only to be refused (see `refuseStoredState`).
    previous_response_id: z.string().nullish(),
    conversation: z.unknown().optional(),
    prompt: z.unknown().optional(),
    background: z.boolean().nullish(),
  })
  .loose();

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;
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
