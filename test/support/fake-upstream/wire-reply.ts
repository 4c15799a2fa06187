import type { FakeUsage } from './behaviour.ts';
import type { JsonRecord } from './json-fields.ts';

export type FakeWireName = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini' | 'bedrock-converse';

/** `json-array` is generate-content streaming without `alt=sse`: one JSON array, written element by element. */
export type StreamMode = 'none' | 'sse' | 'json-array';

/** What to answer, decided once by the server; each wire only renders it. */
export interface AnswerPlan {
  request: JsonRecord;
  model: string;
  /** Position of the request, so that ids are deterministic. */
  requestIndex: number;
  streamMode: StreamMode;
  text: string;
  textChunks: readonly string[];
  /** The tool calls to answer instead of text, in order; empty for a text answer. */
  toolCalls: readonly PlannedToolCall[];
  usage: FakeUsage | undefined;
  /** Reasoning to answer before the text or tool call, where the wire carries it. */
  reasoning: string | undefined;
  redactedThinking: boolean;
}

export interface PlannedToolCall {
  name: string;
  arguments: string;
}

/** The suffix of the nth call's ids: none for the first, so a single call keeps the ids it always had. */
export function nthCallSuffix(position: number): string {
  return position === 0 ? '' : `_${position}`;
}

export interface FakeError {
  status: number;
  message: string;
  /**
   * The vendor's machine-readable code and the request field at fault, where its envelope has them; `null` for
   * an error the vendor gives no code (the status's usual one otherwise).
   */
  code?: string | null;
  param?: string;
}

/** A request the provider refuses: why, in its words, with a 400 unless it says otherwise. */
export type FakeRefusal = Omit<FakeError, 'status'> & { status?: number };

export type WireReply =
  | { kind: 'json'; status: number; body: unknown }
  | { kind: 'stream'; contentType: string; frames: string[] };

/** The last turn of a conversation, which the default answer echoes. */
export interface LastTurn {
  text: string;
  /** The conversation ends with a tool's result, so a model would now answer in text. */
  isToolResult: boolean;
}

export interface FakeWire {
  readonly name: FakeWireName;
  lastTurn(request: JsonRecord): LastTurn;
  /**
   * The most output the request lets this provider produce: its cap per answer (`undefined` when it states none)
   * and how many answers it asks for (`n`, `candidateCount`). Where a request states a cap twice, the larger one.
   */
  outputLimit(request: JsonRecord): { perAnswer: number | undefined; answers: number };
  /** The reasoning the wire gives by itself for this request (the messages wire when thinking is on). */
  defaultReasoning?(request: JsonRecord, turn: LastTurn): string | undefined;
  /** A 400 the provider answers instead, for a request it refuses (signed thinking tampered with, say). */
  refusal?(request: JsonRecord): FakeRefusal | undefined;
  /** The first tool the request offers, unless it offers none or forbids calling them. */
  offeredToolName(request: JsonRecord): string | undefined;
  answer(plan: AnswerPlan): WireReply;
  errorBody(error: FakeError): unknown;
  /** The event a provider sends when a stream that already started fails. */
  streamErrorFrame(error: FakeError, chunkIndex: number): string;
  /** The answer of the wire's token count endpoint, where it has one: the input tokens of the usage planned. */
  countTokensBody?(usage: FakeUsage | undefined): unknown;
  /** The wire's model list (`GET …/models`), as its vendor writes it, of these model ids. */
  modelListBody?(ids: readonly string[]): unknown;
}

export function sseData(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

export function sseEvent(event: string, value: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(value)}\n\n`;
}

/** Cuts text into `count` pieces of about equal length (tool-call arguments arrive in fragments like this). */
export function splitIntoPieces(text: string, count: number): string[] {
  const pieceLength = Math.max(1, Math.ceil(text.length / count));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += pieceLength) pieces.push(text.slice(start, start + pieceLength));
  return pieces.length > 0 ? pieces : [''];
}

/** A fixed creation time keeps replies byte-for-byte repeatable. */
export const fakeCreatedAtSeconds = 1_750_000_000;
