import type { SseMessage } from '../../sse/sse-event-splitter.ts';
import * as z from '../../validation/zod.ts';
import { isRecord, parseJson, readApart } from '../parse-json.ts';
import { converseUsageSchema } from './bedrock-converse-usage.ts';

/**
 * One event of a ConverseStream answer. On the wire each is a frame of Amazon's binary event stream whose
 * `:event-type` header names it and whose payload is its JSON; decoding the frames is the Bedrock transport's work.
 * This reads an event once it is JSON, in either of the two forms a decoder gives: the SDKs' union member
 * (`{"contentBlockDelta": {...}}`), or the frame's payload with the event's name beside it (`event: contentBlockDelta`,
 * data: `{"contentBlockIndex": 0, "delta": {...}}`). Read tolerantly: only what the gateway uses, each field
 * `z.nullish()`; an event of a type this list does not know is not read.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html#API_runtime_ConverseStream_ResponseSyntax
 */

const blockIndex = z.nullish(z.number());

const deltaSchema = z.object({
  text: z.nullish(z.string()),
  toolUse: z.nullish(z.object({ input: z.nullish(z.string()) })),
  // https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ReasoningContentBlockDelta.html
  reasoningContent: z.nullish(
    z.object({
      text: z.nullish(z.string()),
      signature: z.nullish(z.string()),
      redactedContent: z.nullish(z.string()),
    }),
  ),
});

const envelopeSchema = z.object({
  messageStart: z.nullish(z.object({ role: z.nullish(z.string()) })),
  contentBlockStart: z.nullish(
    z.object({
      contentBlockIndex: blockIndex,
      start: z.nullish(
        z.object({ toolUse: z.nullish(z.object({ toolUseId: z.nullish(z.string()), name: z.nullish(z.string()) })) }),
      ),
    }),
  ),
  contentBlockDelta: z.nullish(z.object({ contentBlockIndex: blockIndex, delta: z.nullish(deltaSchema) })),
  contentBlockStop: z.nullish(z.object({ contentBlockIndex: blockIndex })),
  messageStop: z.nullish(z.object({ stopReason: z.nullish(z.string()) })),
  // Usage read apart: a count an upstream mangles costs the count, not the event.
  metadata: z.nullish(z.object({ usage: readApart(z.nullish(converseUsageSchema)) })),
});

export type ConverseDelta = z.infer<typeof deltaSchema>;
export type ConverseUsageRead = NonNullable<NonNullable<z.infer<typeof envelopeSchema>['metadata']>['usage']>;

/** The events, by type: what the usage reader, the failure check and the translator switch over. */
export type ConverseStreamEvent =
  | { type: 'messageStart'; role: string | undefined }
  | { type: 'contentBlockStart'; index: number; toolUse: { toolUseId: string; name: string } | undefined }
  | { type: 'contentBlockDelta'; index: number; delta: ConverseDelta }
  | { type: 'contentBlockStop'; index: number }
  | { type: 'messageStop'; stopReason: string | undefined }
  | { type: 'metadata'; usage: ConverseUsageRead | undefined }
  /**
   * An exception frame (`internalServerException`, `modelStreamErrorException`, `validationException`,
   * `throttlingException`, `serviceUnavailableException`, or one added later): the stream failed.
   */
  | { type: 'exception'; name: string; message: string | undefined };

const exceptionSchema = z.object({ message: z.nullish(z.string()), Message: z.nullish(z.string()) });

/** An exception member of the union: any member whose name ends in `Exception`. */
function exceptionOf(payload: Record<string, unknown>): ConverseStreamEvent | undefined {
  const name = Object.keys(payload).find((key) => key.endsWith('Exception'));
  if (name === undefined) return undefined;
  const body = exceptionSchema.safeParse(payload[name]);
  const message = body.success ? (body.data.message ?? body.data.Message ?? undefined) : undefined;
  return { type: 'exception', name, message };
}

/** One decoded event in the SDKs' union form; `undefined` for one this list does not know. */
export function converseStreamEventOf(payload: unknown): ConverseStreamEvent | undefined {
  if (!isRecord(payload)) return undefined;
  const exception = exceptionOf(payload);
  if (exception) return exception;
  const parsed = envelopeSchema.safeParse(payload);
  if (!parsed.success) return undefined;
  const event = parsed.data;
  if (event.messageStart) return { type: 'messageStart', role: event.messageStart.role ?? undefined };
  if (event.contentBlockStart) {
    const toolUse = event.contentBlockStart.start?.toolUse;
    return {
      type: 'contentBlockStart',
      index: event.contentBlockStart.contentBlockIndex ?? 0,
      toolUse: toolUse ? { toolUseId: toolUse.toolUseId ?? '', name: toolUse.name ?? '' } : undefined,
    };
  }
  if (event.contentBlockDelta) {
    return {
      type: 'contentBlockDelta',
      index: event.contentBlockDelta.contentBlockIndex ?? 0,
      delta: event.contentBlockDelta.delta ?? {},
    };
  }
  if (event.contentBlockStop) return { type: 'contentBlockStop', index: event.contentBlockStop.contentBlockIndex ?? 0 };
  if (event.messageStop) return { type: 'messageStop', stopReason: event.messageStop.stopReason ?? undefined };
  if (event.metadata) return { type: 'metadata', usage: event.metadata.usage ?? undefined };
  return undefined;
}

/**
 * One event as the relay hands it over: its JSON in `data`, and, when the decoder names it apart (the frame's
 * `:event-type` or `:exception-type` header), its name in `event`. A payload already in the union form is read as is.
 */
export function parseConverseStreamEvent(message: SseMessage): ConverseStreamEvent | undefined {
  const payload = parseJson(message.data);
  const name = message.event;
  if (name === undefined || name === 'message' || (isRecord(payload) && name in payload)) {
    return converseStreamEventOf(payload);
  }
  return converseStreamEventOf({ [name]: payload });
}
