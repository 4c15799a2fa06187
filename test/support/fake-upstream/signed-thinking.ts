import { createHmac } from 'node:crypto';
import { arrayAt, isRecord, type JsonRecord, recordAt, stringAt } from './json-fields.ts';

/**
 * Signed reasoning, as a strict messages-format provider keeps it: every thinking block it returns carries a
 * signature over its text, and redacted thinking carries data only it can read; both must come back unchanged.
 * The key is the fake's own, so a signature no one but the fake could have made proves the block went round trip.
 */
const signingKey = 'fake-upstream-thinking-key';

export function thinkingSignature(thinking: string): string {
  return createHmac('sha256', signingKey).update(thinking).digest('base64');
}

/** Redacted thinking as the fake issues it: an opaque token whose tail the fake can check. */
export function redactedThinkingData(seed: string): string {
  return `fake-redacted.${thinkingSignature(`redacted:${seed}`)}.${Buffer.from(seed).toString('base64')}`;
}

function isRedactedDataIntact(data: string): boolean {
  const [prefix, signature, encodedSeed] = data.split('.');
  if (prefix !== 'fake-redacted' || signature === undefined || encodedSeed === undefined) return false;
  return signature === thinkingSignature(`redacted:${Buffer.from(encodedSeed, 'base64').toString()}`);
}

/** Whether the request turns thinking on, as the vendor reads `thinking`. */
export function thinkingEnabled(request: JsonRecord): boolean {
  const type = stringAt(recordAt(request, 'thinking'), 'type');
  return type === 'enabled' || type === 'adaptive';
}

/**
 * The vendor's checks of the reasoning a conversation sends back, as 400 messages; `undefined` when it passes:
 * every thinking block must carry the signature it was given over its text, unchanged; redacted thinking its data
 * unchanged; and with thinking on, an assistant turn that called tools and whose results are being sent must
 * begin with its reasoning. https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks
 */
export function thinkingRefusal(request: JsonRecord): string | undefined {
  const turns = arrayAt(request, 'messages');
  for (const [position, turn] of turns.entries()) {
    if (stringAt(turn, 'role') !== 'assistant') continue;
    for (const [index, block] of arrayAt(turn, 'content').entries()) {
      const where = `messages.${position}.content.${index}`;
      const type = stringAt(block, 'type');
      if (type === 'thinking') {
        const signature = stringAt(block, 'signature');
        if (signature === undefined) return `${where}.thinking.signature: Field required`;
        if (signature !== thinkingSignature(stringAt(block, 'thinking') ?? '')) {
          return `${where}: Invalid \`signature\` in \`thinking\` block`;
        }
      } else if (type === 'redacted_thinking' && !isRedactedDataIntact(stringAt(block, 'data') ?? '')) {
        return `${where}: Invalid \`data\` in \`redacted_thinking\` block`;
      }
    }
  }
  if (!thinkingEnabled(request)) return undefined;
  const lastAssistant = turns.findLastIndex((turn) => stringAt(turn, 'role') === 'assistant');
  const blocks = arrayAt(turns[lastAssistant], 'content');
  const callsTools = blocks.some((block) => stringAt(block, 'type') === 'tool_use');
  const resultsFollow = turns
    .slice(lastAssistant + 1)
    .some((turn) => arrayAt(turn, 'content').some((block) => stringAt(block, 'type') === 'tool_result'));
  const firstType = isRecord(blocks[0]) ? stringAt(blocks[0], 'type') : undefined;
  if (callsTools && resultsFollow && firstType !== 'thinking' && firstType !== 'redacted_thinking') {
    return `messages.${lastAssistant}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${firstType ?? 'nothing'}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`;
  }
  return undefined;
}
