import * as z from 'zod';

/**
 * The Chat Completions request as the translator reads it. The pipeline's own schema only checks what every
 * route needs; translation reads every message part, so it checks them here: strict on the fields it reads,
 * `.loose()` on objects because clients send fields (`name`, `detail`, vendor extensions) that it may ignore.
 * https://platform.openai.com/docs/api-reference/chat/create
 */

const textPartSchema = z.object({ type: z.literal('text'), text: z.string() }).loose();

const imagePartSchema = z
  .object({ type: z.literal('image_url'), image_url: z.object({ url: z.string().min(1) }).loose() })
  .loose();

/** Parts the chat wire allows but the messages upstream cannot take; the converter refuses them by name. */
const untranslatablePartSchema = z.object({ type: z.enum(['input_audio', 'file', 'video_url']) }).loose();

const refusalPartSchema = z.object({ type: z.literal('refusal'), refusal: z.string() }).loose();

const userPartSchema = z.discriminatedUnion('type', [textPartSchema, imagePartSchema, untranslatablePartSchema]);
const assistantPartSchema = z.discriminatedUnion('type', [textPartSchema, refusalPartSchema]);

const textContentSchema = z.union([z.string(), z.array(textPartSchema)]);

export const chatToolCallSchema = z
  .object({
    id: z.string().min(1),
    type: z.literal('function'),
    function: z.object({ name: z.string().min(1), arguments: z.string() }).loose(),
  })
  .loose();

const systemMessageSchema = z.object({ role: z.enum(['system', 'developer']), content: textContentSchema }).loose();

const userMessageSchema = z
  .object({ role: z.literal('user'), content: z.union([z.string(), z.array(userPartSchema)]) })
  .loose();

const assistantMessageSchema = z
  .object({
    role: z.literal('assistant'),
    content: z.union([z.string(), z.array(assistantPartSchema)]).nullish(),
    refusal: z.string().nullish(),
    tool_calls: z.array(chatToolCallSchema).nullish(),
    // DeepSeek-type APIs return the model's reasoning here, and clients send it back on later turns.
    reasoning_content: z.string().nullish(),
    // The deprecated single-function form; refused by the converter so a conversation never loses a call.
    function_call: z.unknown().optional(),
  })
  .loose();

const toolMessageSchema = z
  .object({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: textContentSchema })
  .loose();

export const chatMessageSchema = z.discriminatedUnion('role', [
  systemMessageSchema,
  userMessageSchema,
  assistantMessageSchema,
  toolMessageSchema,
]);

const functionToolSchema = z
  .object({
    type: z.literal('function'),
    function: z
      .object({
        name: z.string().min(1),
        description: z.string().nullish(),
        parameters: z.record(z.string(), z.unknown()).nullish(),
      })
      .loose(),
  })
  .loose();

/** Read loosely and decided by the converter, so each refused form gets its own code and message. */
const toolChoiceSchema = z.union([z.string(), z.object({ type: z.string() }).loose()]);

export const chatToMessagesRequestSchema = z
  .object({
    model: z.string().min(1),
    messages: z.array(chatMessageSchema).min(1),
    stream: z.boolean().nullish(),
    max_tokens: z.number().int().positive().nullish(),
    max_completion_tokens: z.number().int().positive().nullish(),
    temperature: z.number().nonnegative().nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    stop: z.union([z.string(), z.array(z.string())]).nullish(),
    tools: z.array(functionToolSchema).nullish(),
    tool_choice: toolChoiceSchema.nullish(),
    parallel_tool_calls: z.boolean().nullish(),
    n: z.number().int().positive().nullish(),
    logprobs: z.boolean().nullish(),
    response_format: z.object({ type: z.string() }).loose().nullish(),
  })
  .loose();

export type ChatToMessagesRequest = z.infer<typeof chatToMessagesRequestSchema>;
export type ChatMessage = z.infer<typeof chatMessageSchema>;
export type ChatUserPart = z.infer<typeof userPartSchema>;
export type ChatAssistantPart = z.infer<typeof assistantPartSchema>;
export type ChatTextContent = z.infer<typeof textContentSchema>;
export type ChatToolCall = z.infer<typeof chatToolCallSchema>;
export type ChatFunctionTool = z.infer<typeof functionToolSchema>;
export type ChatToolChoice = z.infer<typeof toolChoiceSchema>;
