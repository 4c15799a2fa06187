import { arrayAt, type JsonRecord, stringAt } from './json-fields.ts';
import type { FakeRefusal } from './wire-reply.ts';

/**
 * OpenAI's limits on the ids of the tool calls a conversation sends back: 40 characters on Chat Completions (an
 * assistant turn's `tool_calls[].id`, a tool message's `tool_call_id`), 64 on Responses (an input item's
 * `call_id`). A longer one is refused with a 400 `string_above_max_length` that names its place, in the vendor's
 * words (vercel/ai#5171, agno#5382).
 */
const chatCallIdLimit = 40;
const responsesCallIdLimit = 64;

export function chatCallIdRefusal(request: JsonRecord): FakeRefusal | undefined {
  for (const [position, message] of arrayAt(request, 'messages').entries()) {
    const where = `messages[${position}]`;
    const refusal =
      tooLong(`${where}.tool_call_id`, stringAt(message, 'tool_call_id'), chatCallIdLimit) ??
      arrayAt(message, 'tool_calls')
        .map((call, index) => tooLong(`${where}.tool_calls[${index}].id`, stringAt(call, 'id'), chatCallIdLimit))
        .find((found) => found !== undefined);
    if (refusal) return refusal;
  }
  return undefined;
}

export function responsesCallIdRefusal(request: JsonRecord): FakeRefusal | undefined {
  return arrayAt(request, 'input')
    .map((item, position) => tooLong(`input[${position}].call_id`, stringAt(item, 'call_id'), responsesCallIdLimit))
    .find((found) => found !== undefined);
}

function tooLong(param: string, value: string | undefined, limit: number): FakeRefusal | undefined {
  if (value === undefined || value.length <= limit) return undefined;
  return {
    message: `Invalid '${param}': string too long. Expected a string with maximum length ${limit}, but got a string with length ${value.length} instead.`,
    param,
    code: 'string_above_max_length',
  };
}
