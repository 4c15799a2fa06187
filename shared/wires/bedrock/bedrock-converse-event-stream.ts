import type { Readable } from 'node:stream';
import type { Message } from '@smithy/types';
import { toUtf8 } from '@smithy/util-utf8';
import { parseJson } from '../parse-json.ts';
import { bedrockEventStreamAsSse, headerText } from './bedrock-event-stream.ts';

/**
 * ConverseStream's binary event stream as the SSE messages the Converse wire reads (parseConverseStreamEvent):
 * each event frame's `:event-type` (`messageStart`, `contentBlockStart`, `contentBlockDelta`, `contentBlockStop`,
 * `messageStop`, `metadata`) as the SSE event name and its JSON payload as the data; an exception frame as an event
 * named by its `:exception-type` (`throttlingException`, `modelStreamErrorException`…), which the wire reads as
 * the stream's failure. https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 */

const eventName = /^[A-Za-z]{1,64}$/;

/** An exception frame's name as Converse's union spells its members: ending in `Exception`. */
function exceptionNameOf(message: Message): string {
  const named = headerText(message, ':exception-type') ?? headerText(message, ':error-code') ?? '';
  const name = eventName.test(named) ? named : 'internalServerException';
  return name.endsWith('Exception') ? name : `${name}Exception`;
}

/** One decoded frame as SSE text; `undefined` for a frame that carries no Converse event. */
export function converseSseOfFrame(message: Message): string | undefined {
  const kind = headerText(message, ':message-type');
  const payload = parseJson(toUtf8(message.body));
  if (kind === 'exception' || kind === 'error') {
    const said = (payload as { message?: unknown } | undefined)?.message ?? headerText(message, ':error-message');
    const text = typeof said === 'string' ? said.slice(0, 2_000) : undefined;
    return `event: ${exceptionNameOf(message)}\ndata: ${JSON.stringify(text === undefined ? {} : { message: text })}\n\n`;
  }
  const type = headerText(message, ':event-type');
  if (kind !== 'event' || type === undefined || !eventName.test(type) || payload === undefined) return undefined;
  // Written again as one line: SSE data may not hold a line break, whatever spacing the payload came with.
  return `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** The ConverseStream body as SSE bytes; destroying it stops reading the upstream body. */
export function converseEventStreamAsSse(body: Readable): Readable {
  return bedrockEventStreamAsSse(body, converseSseOfFrame);
}
