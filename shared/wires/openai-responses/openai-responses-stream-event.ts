import type { ResponsesOutputItem, ResponsesOutputText, ResponsesResponse } from './responses-response.ts';

/**
 * The Responses stream events the translator produces, without their `sequence_number`, which the framing adds
 * in order. https://platform.openai.com/docs/api-reference/responses-streaming
 */
export type ResponsesStreamEvent =
  | {
      type:
        | 'response.created'
        | 'response.in_progress'
        | 'response.completed'
        | 'response.incomplete'
        | 'response.failed';
      response: ResponsesResponse;
    }
  | {
      type: 'response.output_item.added' | 'response.output_item.done';
      output_index: number;
      item: ResponsesOutputItem;
    }
  | {
      type: 'response.content_part.added' | 'response.content_part.done';
      item_id: string;
      output_index: number;
      content_index: number;
      part: ResponsesOutputText;
    }
  | {
      type: 'response.output_text.delta';
      item_id: string;
      output_index: number;
      content_index: number;
      delta: string;
      logprobs: never[];
    }
  | {
      type: 'response.output_text.done';
      item_id: string;
      output_index: number;
      content_index: number;
      text: string;
      logprobs: never[];
    }
  | { type: 'response.function_call_arguments.delta'; item_id: string; output_index: number; delta: string }
  | {
      type: 'response.function_call_arguments.done';
      item_id: string;
      output_index: number;
      name: string;
      arguments: string;
    }
  // A mid-stream error is flat: `code` and `message` sit on the event itself, not under `error`.
  | { type: 'error'; code: string | null; message: string; param: null };

/** One SSE frame, named by its type as the vendor names them, so clients may dispatch on `event:` or on `type`. */
export function responsesSseFrame(event: ResponsesStreamEvent, sequenceNumber: number): string {
  return `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: sequenceNumber })}\n\n`;
}
