import type {
  ResponseSettings,
  ResponsesIncompleteReason,
  ResponsesOutputItem,
  ResponsesResponse,
  ResponsesStatus,
  ResponsesUsageOut,
} from '../../wires/openai-responses/openai-responses-response.ts';

/**
 * How the gateway builds a Responses `response` for a translated answer: its ids, the request settings it
 * repeats, and the object at any point of a stream's life.
 */

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

/** Who the response is and for which model; shared by the plain and the streamed answer. */
export interface ResponseIdentity {
  /** The response id (see `responseId`). */
  id: string;
  /** The model id as the client asked for it, not the upstream's name. */
  model: string;
  /** Unix seconds; now when not given. */
  createdAt?: number;
  /** The request's settings to repeat (see `convertResponsesRequestToChat`); the defaults when not given. */
  settings?: ResponseSettings;
  /** How the answer's items are shaped for this request; `defaultResponseForm` when not given. */
  form?: ResponseForm;
}

/** What a request decides about the shape of its answer's items, beyond the chat answer itself. */
export interface ResponseForm {
  /** The custom tools' names: a chat call of one of these is a `custom_tool_call` item, its input the text. */
  customToolNames: ReadonlySet<string>;
  /**
   * Where chat `reasoning_content` goes in a reasoning item: its `summary`, when the client asked for a summary
   * (`reasoning.summary`), else its `content` as reasoning text.
   */
  reasoningAs: 'summary' | 'content';
  /** The client includes `reasoning.encrypted_content`: reasoning items carry the state that gives it back. */
  encryptedReasoning: boolean;
}

export const defaultResponseForm: ResponseForm = {
  customToolNames: new Set(),
  reasoningAs: 'content',
  encryptedReasoning: false,
};

/** The response id for a gateway request, in the vendor's `resp_` form. */
export function responseId(requestId: string): string {
  return `resp_${requestId}`;
}

/** Item ids derived from the response id, so one answer's ids are stable and never collide with another's. */
export function outputItemId(kind: 'msg' | 'fc' | 'ctc' | 'rs', responseIdValue: string, position: number): string {
  const base = responseIdValue.startsWith('resp_') ? responseIdValue.slice('resp_'.length) : responseIdValue;
  return `${kind}_${base}_${position}`;
}

/**
 * Text every item id the gateway makes holds: the response id is the request's, and request ids are `req_`
 * and 16 base64url characters, so an item id is `rs_req_Od_L-8iE5w8TtTll_0`. No vendor's id has it (OpenAI's are
 * the kind, `_` and hex), so a request body without it holds none of the gateway's ids.
 */
export const gatewayItemIdMarker = '_req_';

const gatewayItemIdForm = /^(?:msg|fc|ctc|rs)_req_[\w-]{16}_\d+$/;

/** Whether an id is one `outputItemId` made for an item of a gateway request's answer. */
export function isGatewayItemId(id: unknown): id is string {
  return typeof id === 'string' && gatewayItemIdForm.test(id);
}

export interface ResponseState {
  status: ResponsesStatus;
  output: ResponsesOutputItem[];
  usage?: ResponsesUsageOut | undefined;
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
