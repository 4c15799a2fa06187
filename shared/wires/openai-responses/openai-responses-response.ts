/**
 * The Responses answer shapes the translator produces, as the official SDKs read them: every field the SDK's
 * `Response` type requires is present. `output_text` is left out on purpose: the SDKs compute it from `output`,
 * and the vendor does not send it either.
 * https://platform.openai.com/docs/api-reference/responses/object and .../responses-streaming
 */

export interface ResponsesOutputText {
  type: 'output_text';
  text: string;
  annotations: never[];
}

export type ResponsesItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface ResponsesMessageOut {
  type: 'message';
  id: string;
  role: 'assistant';
  status: ResponsesItemStatus;
  content: ResponsesOutputText[];
}

export interface ResponsesFunctionCallOut {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: ResponsesItemStatus;
}

export type ResponsesOutputItem = ResponsesMessageOut | ResponsesFunctionCallOut;

/**
 * `input_tokens` includes the cached tokens (read and written) and `output_tokens` includes the reasoning
 * tokens, as the vendor counts.
 */
export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponsesStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export type ResponsesIncompleteReason = 'max_output_tokens' | 'content_filter';

export type ResponsesToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; name: string };

export interface ResponsesFunctionToolOut {
  type: 'function';
  name: string;
  description: string | null;
  parameters: Record<string, unknown> | null;
  strict: boolean | null;
}

/** The request settings a response repeats, as the vendor's does; see `responseSettingsOf`. */
export interface ResponseSettings {
  instructions: string | null;
  max_output_tokens: number | null;
  metadata: Record<string, string>;
  parallel_tool_calls: boolean;
  reasoning: { effort: string | null; summary: null };
  temperature: number | null;
  tool_choice: ResponsesToolChoice;
  tools: ResponsesFunctionToolOut[];
  top_p: number | null;
}

/** What a request that set nothing gets back; `null` where the upstream's own default applies and is not known. */
export const defaultResponseSettings: ResponseSettings = {
  instructions: null,
  max_output_tokens: null,
  metadata: {},
  parallel_tool_calls: true,
  reasoning: { effort: null, summary: null },
  temperature: null,
  tool_choice: 'auto',
  tools: [],
  top_p: null,
};

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
  usage?: ResponsesUsage;
}

/** Who the response is and for which model; shared by the plain and the streamed answer. */
export interface ResponseIdentity {
  /** The response id (see `responseId`). */
  id: string;
  /** The model id as the client asked for it, not the upstream's name. */
  model: string;
  /** Unix seconds; now when not given. */
  createdAt?: number;
  /** The request's settings to repeat (see `responseSettingsOf`); the defaults when not given. */
  settings?: ResponseSettings;
}

/** The response id for a gateway request, in the vendor's `resp_` form. */
export function responseId(requestId: string): string {
  return `resp_${requestId}`;
}

/** Item ids derived from the response id, so one answer's ids are stable and never collide with another's. */
export function outputItemId(kind: 'msg' | 'fc', responseIdValue: string, position: number): string {
  const base = responseIdValue.startsWith('resp_') ? responseIdValue.slice('resp_'.length) : responseIdValue;
  return `${kind}_${base}_${position}`;
}

export interface ResponseState {
  status: ResponsesStatus;
  output: ResponsesOutputItem[];
  usage?: ResponsesUsage | undefined;
  incompleteReason?: ResponsesIncompleteReason | undefined;
  errorMessage?: string | undefined;
}

/** The response object at any point of its life; `createdAt` is fixed by the caller so every snapshot agrees. */
export function buildResponse(
  identity: ResponseIdentity & { createdAt: number },
  state: ResponseState,
): ResponsesResponse {
  return {
    id: identity.id,
    object: 'response',
    created_at: identity.createdAt,
    status: state.status,
    background: false,
    // The SDK types `error.code` as the vendor's own list; an upstream's codes are not on it, so the failure is
    // a server error here and the upstream's code travels on the stream's `error` event.
    error: state.errorMessage === undefined ? null : { code: 'server_error', message: state.errorMessage },
    incomplete_details: state.incompleteReason ? { reason: state.incompleteReason } : null,
    model: identity.model,
    output: state.output,
    previous_response_id: null,
    store: false,
    truncation: 'disabled',
    ...(identity.settings ?? defaultResponseSettings),
    ...(state.usage ? { usage: state.usage } : {}),
  };
}

/**
 * Models sometimes send no arguments at all for a function without parameters; a Responses client parses
 * `arguments` as JSON, so blank arguments are sent as `{}`.
 */
export function callArguments(text: string): string {
  return text.trim().length > 0 ? text : '{}';
}
