import * as z from '../../validation/zod.ts';

/**
 * The Chat Completions request as the translator reads it. The pipeline's own schema only checks what every
 * route needs; translation reads every message part, so it checks them here: strict on the fields it reads,
 * `z.looseObject` for objects because clients send fields (`name`, `detail`, vendor extensions) that it may ignore.
 * https://platform.openai.com/docs/api-reference/chat/create
 */

const textPartSchema = z.looseObject({ type: z.literal('text'), text: z.string() });

const imagePartSchema = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: z.string().check(z.minLength(1)) }),
});

/** Parts the chat wire allows but the messages upstream cannot take; the converter refuses them by name. */
const untranslatablePartSchema = z.looseObject({ type: z.enum(['input_audio', 'file', 'video_url']) });

const refusalPartSchema = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

const userPartSchema = z.discriminatedUnion('type', [textPartSchema, imagePartSchema, untranslatablePartSchema]);
const assistantPartSchema = z.discriminatedUnion('type', [textPartSchema, refusalPartSchema]);

const textContentSchema = z.union([z.string(), z.array(textPartSchema)]);

export const chatToolCallSchema = z.looseObject({
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
  tool_calls: z.nullish(z.array(chatToolCallSchema)),
  // DeepSeek-type APIs return the model's reasoning here, and clients send it back on later turns.
  reasoning_content: z.nullish(z.string()),
  // The deprecated single-function form; refused by the converter so a conversation never loses a call.
  function_call: z.optional(z.unknown()),
});

const toolMessageSchema = z.looseObject({
  role: z.literal('tool'),
  tool_call_id: z.string().check(z.minLength(1)),
  content: textContentSchema,
});

export const chatMessageSchema = z.discriminatedUnion('role', [
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

/** Read loosely and decided by the converter, so each refused form gets its own code and message. */
const toolChoiceSchema = z.union([z.string(), z.looseObject({ type: z.string() })]);

export const chatToMessagesRequestSchema = z.looseObject({
  model: z.string().check(z.minLength(1)),
  messages: z.array(chatMessageSchema).check(z.minLength(1)),
  stream: z.nullish(z.boolean()),
  max_tokens: z.nullish(z.number().check(z.int(), z.positive())),
  max_completion_tokens: z.nullish(z.number().check(z.int(), z.positive())),
  temperature: z.nullish(z.number().check(z.nonnegative())),
  top_p: z.nullish(z.number().check(z.gte(0), z.lte(1))),
  stop: z.nullish(z.union([z.string(), z.array(z.string())])),
  tools: z.nullish(z.array(functionToolSchema)),
  tool_choice: z.nullish(toolChoiceSchema),
  parallel_tool_calls: z.nullish(z.boolean()),
  n: z.nullish(z.number().check(z.int(), z.positive())),
  logprobs: z.nullish(z.boolean()),
  response_format: z.nullish(z.looseObject({ type: z.string() })),
});

export type ChatToMessagesRequest = z.infer<typeof chatToMessagesRequestSchema>;
export type ChatMessage = z.infer<typeof chatMessageSchema>;
export type ChatUserPart = z.infer<typeof userPartSchema>;
export type ChatAssistantPart = z.infer<typeof assistantPartSchema>;
export type ChatTextContent = z.infer<typeof textContentSchema>;
export type ChatToolCall = z.infer<typeof chatToolCallSchema>;
export type ChatFunctionTool = z.infer<typeof functionToolSchema>;
export type ChatToolChoice = z.infer<typeof toolChoiceSchema>;
