import { GatewayError } from '../http/gateway-error.ts';
import * as z from '../validation/zod.ts';

/** Parses JSON from a provider, where malformed text is an answer to tolerate, not an error to throw. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A JSON object: not `null`, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A payload that reports a failure in any wire the gateway relays: its top level has `type: "error"`
 * (Messages, Responses) or an `error` object (Chat Completions and generate-content put `{"error":{...}}` in a
 * plain `data:` line, and some engines do so on the other wires too). A Responses `response.failed` nests its
 * error under `response` and is a finished (failed) answer that may carry usage, so it is not one.
 */
export function isErrorPayload(payload: unknown): boolean {
  if (!isRecord(payload)) return false;
  return payload.type === 'error' || (typeof payload.error === 'object' && payload.error !== null);
}

/** A 200 whose body is not the answer its wire describes: the upstream's fault, answered 502. */
export function unreadableAnswer(cause: unknown): GatewayError {
  return new GatewayError(502, 'upstream_invalid_response', 'The upstream provider returned an unreadable answer.', {
    cause,
  });
}

/** A whole answer (its JSON, parsed once) read with its wire's answer schema, for a translator; a 502 if it is not one. */
export function readAnswer<Schema extends z.ZodMiniType>(schema: Schema, answer: unknown): z.output<Schema> {
  const parsed = schema.safeParse(answer);
  if (!parsed.success) throw unreadableAnswer(parsed.error);
  return parsed.data;
}

/**
 * The part of a whole answer where its usage sits, read apart from the rest (`usageSchema` picks it from the
 * answer schema), so an answer a translator could not read still counts; undefined when there is none.
 */
export function readAnswerPart<Schema extends z.ZodMiniType, Part>(
  usageSchema: Schema,
  answer: unknown,
  read: (parsed: z.output<Schema>) => Part | undefined,
): Part | undefined {
  const parsed = usageSchema.safeParse(answer);
  return parsed.success ? read(parsed.data) : undefined;
}

/**
 * A part of a payload read on its own: a part that cannot be read is left out (undefined) instead of failing the
 * whole payload. What `z.catch` does, without the 9 KB of zod it adds to every Lambda bundle.
 */
export function readApart<Schema extends z.ZodMiniType>(schema: Schema) {
  return z.optional(
    z.pipe(
      z.unknown(),
      z.transform((value): z.output<Schema> | undefined => {
        const parsed = schema.safeParse(value);
        return parsed.success ? parsed.data : undefined;
      }),
    ),
  );
}
