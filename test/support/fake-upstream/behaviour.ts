import type { StreamGate } from './stream-gate.ts';

/**
 * Usage in the gateway's terms: cached input is a part of input, never an addition to it. Each wire renders it
 * the way its provider does (the messages wire, for one, reports cache reads apart from `input_tokens`).
 */
export interface FakeUsage {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
}

/** Distinct numbers, so a test can tell which figure ended up where. */
export const defaultFakeUsage: FakeUsage = { inputTokens: 17, cachedInputTokens: 5, outputTokens: 9 };

/** How the reply leaves the server. A chunk is one write: one SSE event, or the whole body of a plain reply. */
export interface ReplyPacing {
  /** Pause before every chunk after the first. */
  delayBetweenChunksMilliseconds?: number;
  /** Holds each chunk until the test lets it out; response headers of a stream go out before the first one. */
  gate?: StreamGate;
  /**
   * Destroy the socket once this many chunks have reached it: the client sees the body end without its
   * terminator, as when a provider's connection drops. 0 drops the connection before any byte. For a plain
   * (non-streamed) reply any other number sends the headers and half the body first.
   */
  resetAfterChunks?: number;
  /**
   * A stream's socket is destroyed after its last chunk instead of ending the body: the whole answer arrived, its
   * body's terminator never does.
   */
  resetAtEnd?: boolean;
  /** A plain reply's status and headers go out, then its body never comes (until the client gives up). */
  stallAfterHeaders?: boolean;
}

export interface FakeToolCall {
  /** Defaults to the first tool that the request offers. */
  name?: string;
  /** A JSON object as text; it is streamed in several fragments. Defaults to `{"input":"<last user text>"}`. */
  arguments?: string;
}

export interface AnswerBehaviour extends ReplyPacing {
  type: 'answer';
  /** Defaults to `echo: <text of the last user turn>`. */
  text?: string;
  /** How the text is cut into stream deltas; defaults to one delta per word. */
  textChunks?: readonly string[];
  /**
   * A tool call instead of text. By default the answer calls the first offered tool when the request offers
   * tools, does not forbid them (`tool_choice` none) and does not end with a tool result; `false` never calls.
   */
  toolCall?: FakeToolCall | false;
  /** Several calls in one answer (parallel tool calls), streamed one after another; goes before `toolCall`. */
  toolCalls?: readonly FakeToolCall[];
  /**
   * Custom figures, or `'omit'` for a reply (or stream) that carries no usage at all. On the messages wire that
   * drops `usage` from message_start and message_delta too, which the Anthropic SDK's `messages.stream()` helper
   * does not tolerate (iterating `messages.create({ stream: true })` does); a real provider always sends it.
   * `'most-allowed'` reports the most a provider could bill for the request it received (most-allowed-usage.ts).
   */
  usage?: FakeUsage | 'omit' | 'most-allowed';
  /**
   * The model's reasoning. Chat answers it as `reasoning_content`; the messages wire always reasons when the
   * request turns thinking on (`considering: <last turn text>` by default), as a thinking block it signs.
   */
  reasoning?: string;
  /** The messages wire adds a redacted thinking block after its reasoning, as the vendor sometimes does. */
  redactedThinking?: boolean;
  /**
   * A streamed reply whose body ends cleanly after this many chunks, without the rest (its closing event among
   * them): as when a provider or a proxy closes a stream early.
   */
  endAfterChunks?: number;
  /** A streamed reply that breaks off with the wire's in-stream error event after this many chunks. */
  streamError?: { afterChunks: number; status?: number; message?: string };
  headers?: Record<string, string>;
}

export interface ErrorBehaviour extends ReplyPacing {
  type: 'error';
  status: number;
  message?: string;
  /** Replaces the wire's error envelope, for providers' odd bodies. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** Never answers; the exchange records when the client gives up and closes its connection. */
export interface HangBehaviour {
  type: 'hang';
}

export type UpstreamBehaviour = AnswerBehaviour | ErrorBehaviour | HangBehaviour;
