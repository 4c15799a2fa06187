/**
 * The messages-format request the translator builds: only the shapes it produces, typed so a wrong block
 * cannot be built. https://docs.anthropic.com/en/api/messages
 */

export interface MessagesTextBlock {
  type: 'text';
  text: string;
}

export type MessagesImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export interface MessagesImageBlock {
  type: 'image';
  source: MessagesImageSource;
}

/**
 * Reasoning a chat client sent back as `reasoning_content`. It carries no signature: a chat client never saw
 * one, and compatible engines of the K2.7 route check that earlier tool-call turns carry their reasoning.
 */
export interface MessagesThinkingBlock {
  type: 'thinking';
  thinking: string;
}

export interface MessagesToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface MessagesToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | MessagesTextBlock[];
}

export type MessagesUserBlock = MessagesTextBlock | MessagesImageBlock | MessagesToolResultBlock;
export type MessagesAssistantBlock = MessagesThinkingBlock | MessagesTextBlock | MessagesToolUseBlock;

export type MessagesTurn =
  | { role: 'user'; content: MessagesUserBlock[] }
  | { role: 'assistant'; content: MessagesAssistantBlock[] };

export interface MessagesTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

/** Only the choices K2.7 thinking mode accepts: forced forms (`any`, `tool`) are refused before this point. */
export type MessagesToolChoice = { type: 'auto'; disable_parallel_tool_use?: boolean } | { type: 'none' };

export type MessagesThinking = { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' };

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: MessagesTurn[];
  system?: MessagesTextBlock[];
  thinking: MessagesThinking;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  stream?: boolean;
  tools?: MessagesTool[];
  tool_choice?: MessagesToolChoice;
}
