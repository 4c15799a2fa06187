/**
 * The gateway's form of a reasoning item's `encrypted_content` on a translated route: the model's reasoning text,
 * kept by the client rather than by the gateway, which stores no conversations. A client that sends the item back
 * (Codex CLI does, with `store: false` and `include: ["reasoning.encrypted_content"]`) gives the reasoning back to
 * the upstream exactly as the model wrote it, as chat `reasoning_content` (a thinking block on the messages route).
 *
 * It is an encoding, not encryption: the text is the client's own answer, and the gateway has nothing to hide in
 * it or to prove with it. A value in any other form (the vendor's own encrypted state, from a native connection)
 * means nothing to a chat upstream and is not read.
 */

const prefix = 'gateway-reasoning.v1.';

export interface ReasoningState {
  /** The reasoning as the model wrote it (chat `reasoning_content`). */
  text: string;
}

export function encodeReasoningState(state: ReasoningState): string {
  return prefix + Buffer.from(JSON.stringify(state), 'utf8').toString('base64url');
}

/** The state a value of the gateway's form holds; undefined for anything else, never an error. */
export function decodeReasoningState(value: string | null | undefined): ReasoningState | undefined {
  if (!value?.startsWith(prefix)) return undefined;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(value.slice(prefix.length), 'base64url').toString('utf8'));
    if (typeof decoded !== 'object' || decoded === null) return undefined;
    const { text } = decoded as { text?: unknown };
    return typeof text === 'string' ? { text } : undefined;
  } catch {
    return undefined;
  }
}
