import * as z from '../../validation/zod.ts';
import { readAnswer, readAnswerPart } from '../parse-json.ts';
import type { UsageReport } from '../usage-report.ts';
import { responsesUsageSchema, usageReportOfResponsesUsage } from './openai-responses-usage.ts';

/**
 * The Responses `response` object. Read tolerantly (`responseSchema`): only the fields the gateway uses, each
 * `z.nullish()`, because compatible engines omit or null fields the vendor always sends. Written exactly
 * (`ResponsesResponse`), as the official SDKs read it: every field the SDK's `Response` type requires is present.
 * `output_text` is left out on purpose: the SDKs compute it from `output`, and the vendor does not send it either.
 * https://platform.openai.com/docs/api-reference/responses/object
 */

export const responsesErrorSchema = z.object({
  message: z.nullish(z.string()),
  type: z.nullish(z.string()),
  code: z.nullish(z.string()),
});

/** Where an answer reports its usage: read apart from the rest, so an answer a translator could not read still counts. */
const answerUsagePart = { usage: z.nullish(responsesUsageSchema) };

export const responseSchema = z.object({
  status: z.nullish(z.string()),
  ...answerUsagePart,
  error: z.nullish(responsesErrorSchema),
});

export type ResponseAnswer = z.infer<typeof responseSchema>;

const answerUsageSchema = z.object(answerUsagePart);

export function usageOfResponsesAnswer(answer: unknown): UsageReport | undefined {
  return readAnswerPart(answerUsageSchema, answer, (parsed) =>
    parsed.usage ? usageReportOfResponsesUsage(parsed.usage) : undefined,
  );
}

/** A Responses answer read for translation; a 200 whose body is not one is an upstream fault (502). */
export function parseResponsesAnswer(answer: unknown): ResponseAnswer {
  return readAnswer(responseSchema, answer);
}

export interface ResponsesOutputText {
  type: 'output_text';
  text: string;
  annotations: never[];
}

/** What the assistant declined to do, apart from its text, as the vendor's answer carries it. */
export interface ResponsesRefusal {
  type: 'refusal';
  refusal: string;
}

export type ResponsesMessagePart = ResponsesOutputText | ResponsesRefusal;

export type ResponsesItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface ResponsesMessageOut {
  type: 'message';
  id: string;
  role: 'assistant';
  status: ResponsesItemStatus;
  content: ResponsesMessagePart[];
}

export interface ResponsesFunctionCallOut {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: ResponsesItemStatus;
}

/** A call of a `custom` tool: its free-form input as the text it is. */
export interface ResponsesCustomToolCallOut {
  type: 'custom_tool_call';
  id: string;
  call_id: string;
  name: string;
  input: string;
  status: ResponsesItemStatus;
}

export interface ResponsesReasoningText {
  type: 'reasoning_text';
  text: string;
}

export interface ResponsesSummaryText {
  type: 'summary_text';
  text: string;
}

/**
 * The model's reasoning: as `summary` or as `content` (see ResponseForm), and, when the client includes
 * `reasoning.encrypted_content`, the state that gives it back to the upstream on a later turn.
 */
export interface ResponsesReasoningOut {
  type: 'reasoning';
  id: string;
  status: ResponsesItemStatus;
  summary: ResponsesSummaryText[];
  content?: ResponsesReasoningText[];
  encrypted_content?: string;
}

export type ResponsesOutputItem =
  | ResponsesMessageOut
  | ResponsesFunctionCallOut
  | ResponsesCustomToolCallOut
  | ResponsesReasoningOut;

/**
 * `input_tokens` includes the cached tokens (read and written) and `output_tokens` includes the reasoning
 * tokens, as the vendor counts.
 */
export interface ResponsesUsageOut {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponsesStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export type ResponsesIncompleteReason = 'max_output_tokens' | 'content_filter';

export type ResponsesToolChoice = 'auto' | 'none' | 'required' | { type: 'function' | 'custom'; name: string };

/** A tool as the response repeats it. */
export type ResponsesToolOut =
  | {
      type: 'function';
      name: string;
      description: string | null;
      parameters: Record<string, unknown> | null;
      strict: boolean | null;
    }
  | { type: 'custom'; name: string; description?: string; format?: ResponsesCustomToolFormat };

/** What a custom tool's input must be: any text, or text of a grammar (Lark or a regular expression). */
export type ResponsesCustomToolFormat =
  | { type: 'text' }
  | { type: 'grammar'; syntax: 'lark' | 'regex'; definition: string };

/** The request settings a response repeats, as the vendor's does; see `responseSettingsOf`. */
export interface ResponseSettings {
  instructions: string | null;
  max_output_tokens: number | null;
  metadata: Record<string, string>;
  parallel_tool_calls: boolean;
  reasoning: { effort: string | null; summary: string | null };
  temperature: number | null;
  tool_choice: ResponsesToolChoice;
  tools: ResponsesToolOut[];
  top_p: number | null;
}

export interface ResponsesResponse extends ResponseSettings {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponsesStatus;
  background: false;
  error: { code: 'server_error'; message: string } | null;
  incomplete_details: { reason: ResponsesIncompleteReason } | null;
  model: string;
  output: ResponsesOutputItem[];
  previous_response_id: null;
  /** `false` whatever the client asked: the gateway stores no response, so none can be retrieved or continued. */
  store: false;
  truncation: 'disabled';
  /** Left out when the upstream reported none: unknown, never sent as 0. */
  usage?: ResponsesUsageOut;
}
