import * as z from '../../validation/zod.ts';
import { outputCapSchema } from '../spend-bounds.ts';
import { inputListSchema, toolListSchema } from './openai-responses-input.ts';

/**
 * The Responses request, read two ways. Every route reads the envelope, `responsesRequestSchema`: strict on the
 * fields the pipeline reads, open (`z.looseObject`) for the rest, which reach the provider untouched. `input` may
 * be left out when a request continues a stored response or uses a prompt template, so it is only checked for
 * its shape there. A translation to another wire reads every field it carries with
 * `translatableResponsesRequestSchema`, and each input item and tool with the schema of its type
 * (`openai-responses-input.ts`): strict on the fields it reads, `z.looseObject` for objects because clients send
 * fields (`id`, `status`, `strict`, vendor extensions) that it may ignore.
 * https://platform.openai.com/docs/api-reference/responses/create
 */

const outputCap = z.nullish(outputCapSchema);

export const responsesRequestSchema = z.looseObject({
  model: z.string().check(z.minLength(1), z.maxLength(256)),
  input: z.optional(z.union([z.string(), z.array(z.unknown())])),
  stream: z.nullish(z.boolean()),
  max_output_tokens: outputCap,
  tools: z.optional(z.array(z.unknown())),
  prompt: z.optional(z.unknown()),
  background: z.nullish(z.boolean()),
});

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;

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
  // Optional here because a stored-state request may leave it out; the converter refuses those first. Each item
  // is read by the schema of its type (openai-responses-input.ts).
  input: z.optional(z.union([z.string(), inputListSchema])),
  instructions: z.nullish(z.string()),
  stream: z.nullish(z.boolean()),
  max_output_tokens: outputCap,
  temperature: z.nullish(z.number().check(z.nonnegative())),
  top_p: z.nullish(z.number().check(z.gte(0), z.lte(1))),
  // The effort's allowed values are the catalog's, checked where the chat body is prepared for the route.
  reasoning: z.nullish(z.looseObject({ effort: z.nullish(z.string()), summary: z.nullish(z.string()) })),
  tools: z.nullish(toolListSchema),
  tool_choice: z.nullish(toolChoiceSchema),
  parallel_tool_calls: z.nullish(z.boolean()),
  text: z.nullish(z.looseObject({ format: z.nullish(textFormatSchema), verbosity: z.nullish(z.string()) })),
  include: z.nullish(z.array(z.string())),
  metadata: z.nullish(z.record(z.string(), z.string())),
  user: z.nullish(z.string()),
  safety_identifier: z.nullish(z.string()),
  prompt_cache_key: z.nullish(z.string()),
  service_tier: z.nullish(z.string()),
  top_logprobs: z.nullish(z.number().check(z.int(), z.nonnegative())),
  // Server-stored state, read only to be refused (see `refuseStoredState`).
  store: z.nullish(z.boolean()),
  previous_response_id: z.nullish(z.string()),
  conversation: z.optional(z.unknown()),
  prompt: z.optional(z.unknown()),
  background: z.nullish(z.boolean()),
});

export type TranslatableResponsesRequest = z.infer<typeof translatableResponsesRequestSchema>;
export type ResponsesToolChoiceInput = z.infer<typeof toolChoiceSchema>;
export type ResponsesTextFormat = z.infer<typeof textFormatSchema>;
