import type { SseMessage } from '../../sse/sse-event-splitter.ts';
import * as z from '../../validation/zod.ts';
import { isErrorPayload, isRecord, parseJson } from '../parse-json.ts';
import {
  type ResponsesMessagePart,
  type ResponsesOutputItem,
  type ResponsesReasoningText,
  type ResponsesResponse,
  type ResponsesSummaryText,
  responseSchema,
} from './openai-responses-response.ts';

/**
 * One event of a Responses stream. Read tolerantly (`ResponsesStreamEvent`), by `type`: only the events the
 * gateway reads; the other types (there are dozens, and more get added) are not read, and none of them carries
 * usage. Written exactly (`ResponsesStreamEventOut`), as the official SDKs read them.
 * https://platform.openai.com/docs/api-reference/responses-streaming
 */

/** Flat and optional: output items come in many types (message, reasoning, function_call, ...). */
const outputItemSchema = z.object({
  type: z.string(),
  id: z.nullish(z.string()),
  call_id: z.nullish(z.string()),
  name: z.nullish(z.string()),
  arguments: z.nullish(z.string()),
});

const streamEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.enum([
      'response.created',
      'response.in_progress',
      'response.completed',
      'response.incomplete',
      'response.failed',
    ]),
    response: responseSchema,
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

export type ResponsesStreamEvent = z.infer<typeof streamEventSchema>;

/**
 * One SSE event of a Responses stream, read once; `undefined` for an event it does not read, so a reader never
 * throws. An event named `error`, or any error payload, is the stream's failure whatever else it holds.
 */
export function parseResponsesStreamEvent(message: SseMessage): ResponsesStreamEvent | undefined {
  const payload = parseJson(message.data);
  const parsed = streamEventSchema.safeParse(payload);
  if (message.event === 'error' || isErrorPayload(payload)) {
    if (parsed.success && parsed.data.type === 'error') return parsed.data;
    // Some engines send the nested form of an error response instead of the flat event.
    const nested = isRecord(payload) && isRecord(payload.error) ? payload.error : {};
    const { message: text, code } = nested;
    return {
      type: 'error',
      message: typeof text === 'string' ? text : undefined,
      code: typeof code === 'string' ? code : undefined,
    };
  }
  return parsed.success ? parsed.data : undefined;
}

/** The events the gateway writes; `sequence_number` counts them from 0, in order. */
export type ResponsesStreamEventOut =
  | {
      type:
        | 'response.created'
        | 'response.in_progress'
        | 'response.completed'
        | 'response.incomplete'
        | 'response.failed';
      response: ResponsesResponse;
      sequence_number: number;
    }
  | {
      type: 'response.output_item.added' | 'response.output_item.done';
      output_index: number;
      item: ResponsesOutputItem;
      sequence_number: number;
    }
  | {
      type: 'response.content_part.added' | 'response.content_part.done';
      item_id: string;
      output_index: number;
      content_index: number;
      part: ResponsesMessagePart | ResponsesReasoningText;
      sequence_number: number;
    }
  | {
      type: 'response.refusal.delta' | 'response.reasoning_text.delta';
      item_id: string;
      output_index: number;
      content_index: number;
      delta: string;
      sequence_number: number;
    }
  | {
      type: 'response.refusal.done';
      item_id: string;
      output_index: number;
      content_index: number;
      refusal: string;
      sequence_number: number;
    }
  | {
      type: 'response.reasoning_text.done';
      item_id: string;
      output_index: number;
      content_index: number;
      text: string;
      sequence_number: number;
    }
  | {
      type: 'response.reasoning_summary_part.added' | 'response.reasoning_summary_part.done';
      item_id: string;
      output_index: number;
      summary_index: number;
      part: ResponsesSummaryText;
      sequence_number: number;
    }
  | {
      type: 'response.reasoning_summary_text.delta';
      item_id: string;
      output_index: number;
      summary_index: number;
      delta: string;
      sequence_number: number;
    }
  | {
      type: 'response.reasoning_summary_text.done';
      item_id: string;
      output_index: number;
      summary_index: number;
      text: string;
      sequence_number: number;
    }
  | {
      type: 'response.custom_tool_call_input.delta';
      item_id: string;
      output_index: number;
      delta: string;
      sequence_number: number;
    }
  | {
      type: 'response.custom_tool_call_input.done';
      item_id: string;
      output_index: number;
      input: string;
      sequence_number: number;
    }
  | {
      type: 'response.output_text.delta';
      item_id: string;
      output_index: number;
      content_index: number;
      delta: string;
      logprobs: never[];
      sequence_number: number;
    }
  | {
      type: 'response.output_text.done';
      item_id: string;
      output_index: number;
      content_index: number;
      text: string;
      logprobs: never[];
      sequence_number: number;
    }
  | {
      type: 'response.function_call_arguments.delta';
      item_id: string;
      output_index: number;
      delta: string;
      sequence_number: number;
    }
  | {
      type: 'response.function_call_arguments.done';
      item_id: string;
      output_index: number;
      name: string;
      arguments: string;
      sequence_number: number;
    }
  // A mid-stream error is flat: `code` and `message` sit on the event itself, not under `error`. The gateway's own
  // (the upstream failed or timed out) comes outside the translated sequence, without a number.
  | { type: 'error'; code: string | null; message: string; param: null; sequence_number?: number };
