import * as z from '../../validation/zod.ts';
import { parseJson } from '../parse-json.ts';

/**
 * What the Responses API returns, read tolerantly: only the fields the gateway uses, each `z.nullish()`,
 * because compatible engines omit or null fields the vendor always sends.
 * https://platform.openai.com/docs/api-reference/responses/object and
 * https://platform.openai.com/docs/api-reference/responses-streaming
 */

/** `input_tokens` includes the cached tokens and `output_tokens` includes reasoning tokens. */
export const openaiResponsesUsageSchema = z.object({
  input_tokens: z.nullish(z.number()),
  input_tokens_details: z.nullish(z.object({ cached_tokens: z.nullish(z.number()) })),
  output_tokens: z.nullish(z.number()),
});

export type OpenaiResponsesUsage = z.infer<typeof openaiResponsesUsageSchema>;

export const openaiResponsesErrorSchema = z.object({
  message: z.nullish(z.string()),
  type: z.nullish(z.string()),
  code: z.nullish(z.string()),
});

export const openaiResponsesResponseSchema = z.object({
  status: z.nullish(z.string()),
  usage: z.nullish(openaiResponsesUsageSchema),
  error: z.nullish(openaiResponsesErrorSchema),
});

/** Flat and optional: output items come in many types (message, reasoning, function_call, ...). */
const outputItemSchema = z.object({
  type: z.string(),
  id: z.nullish(z.string()),
  call_id: z.nullish(z.string()),
  name: z.nullish(z.string()),
  arguments: z.nullish(z.string()),
});

/**
 * The stream events the gateway reads, by `type`. Other event types (there are dozens, and more get added)
 * fail to parse and are skipped by readers; none of them carries usage.
 */
export const openaiResponsesStreamEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.enum([
      'response.created',
      'response.in_progress',
      'response.completed',
      'response.incomplete',
      'response.failed',
    ]),
    response: openaiResponsesResponseSchema,
  }),
  z.object({
    type: z.enum(['response.output_item.added', 'response.output_item.done']),
    output_index: z.number(),
    item: outputItemSchema,
  }),
  z.object({
    type: z.literal('response.output_text.delta'),
    item_id: z.nullish(z.string()),
    output_index: z.number(),
    content_index: z.nullish(z.number()),
    delta: z.string(),
  }),
  z.object({
    type: z.literal('response.function_call_arguments.delta'),
    item_id: z.nullish(z.string()),
    output_index: z.number(),
    delta: z.string(),
  }),
  z.object({
    type: z.literal('response.function_call_arguments.done'),
    item_id: z.nullish(z.string()),
    output_index: z.number(),
    arguments: z.string(),
  }),
  // A mid-stream error is flat: `message` and `code` sit on the event itself, not under `error`.
  z.object({
    type: z.literal('error'),
    message: z.nullish(z.string()),
    code: z.nullish(z.string()),
    param: z.nullish(z.string()),
  }),
]);

export type OpenaiResponsesStreamEvent = z.infer<typeof openaiResponsesStreamEventSchema>;

/** Parses one SSE `data` payload; `undefined` for anything that is not a known event, so a reader never throws. */
export function parseOpenaiResponsesStreamEvent(data: string): OpenaiResponsesStreamEvent | undefined {
  const parsed = openaiResponsesStreamEventSchema.safeParse(parseJson(data));
  return parsed.success ? parsed.data : undefined;
}
