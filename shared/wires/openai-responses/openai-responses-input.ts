import { badRequest } from '../../http/gateway-error.ts';
import { describeIssues } from '../../http/parse-request.ts';
import * as z from '../../validation/zod.ts';

/**
 * The items of a Responses `input` list and the tools of a request, as a translation to another wire reads them:
 * strict on the fields it carries over, `z.looseObject` everywhere because clients send fields (`id`, `status`,
 * `annotations`, vendor extensions) that a translation may ignore. Each item is read by its own schema, chosen by
 * its `type`, so a malformed item is refused with its own problem and place; a type no schema here knows is
 * returned as such, for the translation to refuse by name.
 * https://platform.openai.com/docs/api-reference/responses/create#responses_create-input
 */

/** `output_text` is how a previous answer's text comes back when a client resends it as history. */
const textPartSchema = z.looseObject({ type: z.enum(['input_text', 'output_text']), text: z.string() });

const refusalPartSchema = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

/** An image by URL (an `https:` address, or inline as a base64 `data:` URL) or by the id of a file stored upstream. */
const imagePartSchema = z.looseObject({
  type: z.literal('input_image'),
  image_url: z.nullish(z.string().check(z.minLength(1))),
  file_id: z.nullish(z.string()),
  detail: z.nullish(z.string()),
});

/**
 * A file: inline (`file_data`, a base64 `data:` URL), by URL or by the id of a file stored upstream. Its kind is its
 * data's MIME type: a translation carries an inline image or video as one, and refuses other files by name.
 */
const filePartSchema = z.looseObject({
  type: z.literal('input_file'),
  file_data: z.nullish(z.string()),
  file_id: z.nullish(z.string()),
  file_url: z.nullish(z.string()),
  filename: z.nullish(z.string()),
});

/** Audio: read for its type, refused by name where a route cannot carry it. */
const audioPartSchema = z.looseObject({ type: z.literal('input_audio') });

const contentPartSchema = z.discriminatedUnion('type', [
  textPartSchema,
  refusalPartSchema,
  imagePartSchema,
  filePartSchema,
  audioPartSchema,
]);

/** The "easy" input message (`{role, content}`) and the full one (`type: "message"`, as the SDK types it). */
const messageItemSchema = z.looseObject({
  type: z.optional(z.literal('message')),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(contentPartSchema)]),
});

const functionCallItemSchema = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  arguments: z.string(),
});

/** A tool's output: text, or a list of parts (text, images, files) as the vendor allows since 2025. */
const toolOutputSchema = z.union([z.string(), z.array(contentPartSchema)]);

const functionCallOutputItemSchema = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string().check(z.minLength(1)),
  output: toolOutputSchema,
});

/** A call of a `custom` tool: free-form text input, such as the patch Codex CLI's `apply_patch` receives. */
const customToolCallItemSchema = z.looseObject({
  type: z.literal('custom_tool_call'),
  call_id: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  input: z.string(),
});

const customToolCallOutputItemSchema = z.looseObject({
  type: z.literal('custom_tool_call_output'),
  call_id: z.string().check(z.minLength(1)),
  output: toolOutputSchema,
});

const reasoningTextSchema = z.looseObject({ type: z.string(), text: z.string() });

/** The model's reasoning, resent as history: a summary, its text, and the opaque state the answer carried. */
const reasoningItemSchema = z.looseObject({
  type: z.literal('reasoning'),
  id: z.nullish(z.string()),
  summary: z.nullish(z.array(reasoningTextSchema)),
  content: z.nullish(z.array(reasoningTextSchema)),
  encrypted_content: z.nullish(z.string()),
});

/** An item by the id the server stored it under. */
const itemReferenceSchema = z.looseObject({ type: z.literal('item_reference'), id: z.string().check(z.minLength(1)) });

export type ResponsesContentPart = z.infer<typeof contentPartSchema>;
export type ResponsesMessageItem = z.infer<typeof messageItemSchema>;
export type ResponsesFunctionCallItem = z.infer<typeof functionCallItemSchema>;
export type ResponsesToolOutput = z.infer<typeof toolOutputSchema>;
export type ResponsesReasoningItem = z.infer<typeof reasoningItemSchema>;

/** An input item as a translation reads it; `other` is a type it has no schema for (hosted tool calls, ...). */
export type ResponsesInputItem =
  | (ResponsesMessageItem & { type: 'message' })
  | ResponsesFunctionCallItem
  | z.infer<typeof functionCallOutputItemSchema>
  | z.infer<typeof customToolCallItemSchema>
  | z.infer<typeof customToolCallOutputItemSchema>
  | ResponsesReasoningItem
  | z.infer<typeof itemReferenceSchema>
  | { type: 'other'; itemType: string };

/** What `input` holds before each item is read: objects with a `type`, which messages may leave out. */
export const inputListSchema = z.array(z.looseObject({ type: z.optional(z.string()) }));

/** One item read by the schema of its type; a 400 `invalid_request` naming `input.<position>` when it is not one. */
export function readInputItem(item: { type?: string | undefined }, position: number): ResponsesInputItem {
  const where = `input.${position}`;
  switch (item.type) {
    case undefined:
    case 'message':
      return { ...readPart(messageItemSchema, item, where), type: 'message' };
    case 'function_call':
      return readPart(functionCallItemSchema, item, where);
    case 'function_call_output':
      return readPart(functionCallOutputItemSchema, item, where);
    case 'custom_tool_call':
      return readPart(customToolCallItemSchema, item, where);
    case 'custom_tool_call_output':
      return readPart(customToolCallOutputItemSchema, item, where);
    case 'reasoning':
      return readPart(reasoningItemSchema, item, where);
    case 'item_reference':
      return readPart(itemReferenceSchema, item, where);
    default:
      return { type: 'other', itemType: item.type };
  }
}

const functionToolSchema = z.looseObject({
  type: z.literal('function'),
  name: z.string().check(z.minLength(1)),
  description: z.nullish(z.string()),
  parameters: z.nullish(z.record(z.string(), z.unknown())),
  strict: z.nullish(z.boolean()),
});

/**
 * A custom tool takes free-form text; its `format` may constrain that text with a grammar (Lark or a regular
 * expression), as Codex CLI's `apply_patch` does. https://platform.openai.com/docs/guides/function-calling#custom-tools
 */
const customToolSchema = z.looseObject({
  type: z.literal('custom'),
  name: z.string().check(z.minLength(1)),
  description: z.nullish(z.string()),
  format: z.nullish(
    z.looseObject({ type: z.string(), syntax: z.nullish(z.string()), definition: z.nullish(z.string()) }),
  ),
});

export type ResponsesFunctionTool = z.infer<typeof functionToolSchema>;
export type ResponsesCustomTool = z.infer<typeof customToolSchema>;

/** A tool as a translation reads it; `hosted` is every built-in tool, run on the vendor's side. */
export type ResponsesTool = ResponsesFunctionTool | ResponsesCustomTool | { type: 'hosted'; toolType: string };

export const toolListSchema = z.array(z.looseObject({ type: z.string() }));

export function readTool(tool: { type: string }, position: number): ResponsesTool {
  const where = `tools.${position}`;
  switch (tool.type) {
    case 'function':
      return readPart(functionToolSchema, tool, where);
    case 'custom':
      return readPart(customToolSchema, tool, where);
    default:
      return { type: 'hosted', toolType: tool.type };
  }
}

/** A part of a request read with its own schema, its problems named from `where` on. */
function readPart<Schema extends z.ZodMiniType>(schema: Schema, value: unknown, where: string): z.output<Schema> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw badRequest('invalid_request', describeIssues(parsed.error, [where]));
}
