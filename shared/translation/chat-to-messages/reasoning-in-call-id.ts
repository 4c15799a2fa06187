import { deflateRawSync, inflateRawSync } from 'node:zlib';
import * as z from '../../validation/zod.ts';
import {
  type ChatThinkingBlockOut,
  chatThinkingBlockSchema,
  signedThinkingBlocks,
} from '../../wires/openai-chat/openai-chat-thinking-blocks.ts';
import { isRecord } from '../../wires/parse-json.ts';
import type { UpstreamBodyRewrite } from '../../wires/upstream-request-json.ts';

/**
 * The signed reasoning of an answer, carried in the id of its first tool call, for chat and Responses clients that
 * send back only what the format defines. A messages-format upstream that signs its reasoning (the K2.7 route)
 * refuses a tool loop whose last assistant turn does not begin with its thinking blocks, unchanged. The openai SDK
 * keeps the `thinking_blocks` extension field and sends it back; but the AI SDK, LangChain and most agent frameworks
 * rebuild the assistant message from the fields they know — text and tool calls — and so drop it, and the Responses
 * clients that refer to a reasoning item by id (the AI SDK with `store` at its default) send none. Every client
 * sends a tool call's id back unchanged, with the call and with its result: it is how a result finds its call.
 *
 * So the first tool call's id is the upstream's id, a marker, and the blocks (compressed JSON in base64url, so the
 * id keeps to the characters every format allows in one). On the next turn the gateway takes the blocks from it when
 * the assistant message carries none of its own, and gives the upstream its own ids back. It is an encoding, not
 * encryption, as `encrypted_content` on the Responses route is: the reasoning is the client's own answer, and the
 * signatures are the upstream's, which checks them. The gateway stores nothing.
 */

const marker = '_gwr1_';

/** A decompressed carrier larger than any request body the gateway reads is not one. */
const largestCarrierBytes = 8 * 1024 * 1024;

const carriedBlocksSchema = z.array(chatThinkingBlockSchema);

/** The id a client gets for a tool call: the upstream's own, carrying the answer's signed reasoning when it has any. */
export function callIdCarryingReasoning(upstreamId: string, blocks: readonly ChatThinkingBlockOut[]): string {
  if (blocks.length === 0) return upstreamId;
  return upstreamId + marker + deflateRawSync(JSON.stringify(blocks)).toString('base64url');
}

export interface CallIdParts {
  /** The id the upstream gave the call. */
  upstreamId: string;
  /** The signed reasoning the id carries; empty when it carries none, or nothing the gateway can read. */
  thinkingBlocks: ChatThinkingBlockOut[];
}

/** Splits an id a client sent back; an id of any other form is the upstream's own, carrying nothing. */
export function readCallId(id: string): CallIdParts {
  const at = id.indexOf(marker);
  if (at < 0) return { upstreamId: id, thinkingBlocks: [] };
  const upstreamId = id.slice(0, at);
  try {
    const json = inflateRawSync(Buffer.from(id.slice(at + marker.length), 'base64url'), {
      maxOutputLength: largestCarrierBytes,
    });
    const parsed = carriedBlocksSchema.safeParse(JSON.parse(json.toString('utf8')));
    return { upstreamId, thinkingBlocks: parsed.success ? signedThinkingBlocks(parsed.data) : [] };
  } catch {
    return { upstreamId, thinkingBlocks: [] };
  }
}

/** The id the upstream gave a call, from any id a client sends back; what a carrier holds is not decoded. */
export function upstreamCallId(id: string): string {
  const at = id.indexOf(marker);
  return at < 0 ? id : id.slice(0, at);
}

/**
 * Where a wire keeps the ids of tool calls and of their results: the keys from the request body down to the id. A
 * list met on the way is entered element by element: `['messages', 'tool_calls', 'id']` is the id of every call
 * of every message.
 */
export type CallIdPlace = readonly string[];

/**
 * Where a wire keeps its call ids, as the rewrite that gives the upstream its own ids back: every id at one of the
 * wire's `places` that carries reasoning is replaced by the upstream id it carries. A client may send the history it
 * got from the K2.7 route to any other (a fallback, a model switched in the middle of an agent's loop), and the
 * carrier is the gateway's own: no upstream should see it, and OpenAI's APIs refuse a call id longer than 40
 * characters (chat) or 64 (Responses). Only a body whose JSON holds the marker is walked (upstream-request-json.ts).
 * (The chat → messages hop gives the upstream its ids itself, so a K2.7 request is not walked twice.)
 */
export function callIdRewrite(places: readonly CallIdPlace[]): UpstreamBodyRewrite {
  return {
    markers: [marker],
    // A record stays a record: only the values below it change.
    rewrite: (body) =>
      places.reduce((restored, place) => withUpstreamIdsAt(restored, place) as Record<string, unknown>, body),
  };
}

/** `value` with the carriers at `place` (below it) replaced; the parts with none are kept as they are. */
function withUpstreamIdsAt(value: unknown, place: CallIdPlace): unknown {
  if (Array.isArray(value)) return value.map((element) => withUpstreamIdsAt(element, place));
  const [key, ...below] = place;
  if (!isRecord(value) || key === undefined || !Object.hasOwn(value, key)) return value;
  const field = value[key];
  const restored =
    below.length > 0 ? withUpstreamIdsAt(field, below) : typeof field === 'string' ? upstreamCallId(field) : field;
  return restored === field ? value : { ...value, [key]: restored };
}
