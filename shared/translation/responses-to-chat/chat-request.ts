/**
 * The Chat Completions request the translator builds: only the shapes it produces, typed so a wrong message
 * cannot be built. Type aliases rather than interfaces, so a `ChatRequest` can be handed on as the
 * `Record<string, unknown>` body that the next stages (reasoning effort, the chat-to-messages translator) take.
 * https://platform.openai.com/docs/api-reference/chat/create
 */

export type ChatTextPart = { type: 'text'; text: string };

export type ChatRequestContent = string | ChatTextPart[];

/** Only the roles every compatible upstream knows: `developer` is sent as `system`. */
export type ChatRequestMessage = { role: 'system' | 'user' | 'assistant'; content: ChatRequestContent };

export type ChatRequestTool = {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
};

export type ChatRequestToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export type ChatResponseFormat =
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; schema: Record<string, unknown>; description?: string; strict?: boolean };
    };

export type ChatRequest = {
  model: string;
  messages: ChatRequestMessage[];
  stream?: boolean;
  /** Always asked for when streaming: `response.completed` carries usage, which only this chunk reports. */
  stream_options?: { include_usage: true };
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  reasoning_effort?: string;
  tools?: ChatRequestTool[];
  tool_choice?: ChatRequestToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ChatResponseFormat;
};
