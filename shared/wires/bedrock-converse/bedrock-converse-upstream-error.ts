import * as z from '../../validation/zod.ts';
import { parseJson } from '../parse-json.ts';

export interface ConverseErrorDetails {
  message: string;
  /** Bedrock's exception name, such as `ValidationException` or `ThrottlingException`, when the body names it. */
  type: string | undefined;
}

/**
 * Bedrock answers an error with `{"message": "..."}` (some services spell it `Message`) and names the exception in
 * the `x-amzn-ErrorType` header; a body that also carries it as `__type` (the AWS JSON protocol's field, which the
 * Bedrock transport may copy the header into) has it read, without a namespace (`…#ValidationException`).
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors.html
 */
const errorBodySchema = z.object({
  message: z.nullish(z.string()),
  Message: z.nullish(z.string()),
  __type: z.nullish(z.string()),
});

/** `undefined` when the text is not that shape (a proxy's HTML page, say), so the caller falls back on the status. */
export function parseConverseError(text: string): ConverseErrorDetails | undefined {
  const parsed = errorBodySchema.safeParse(parseJson(text));
  if (!parsed.success) return undefined;
  const message = parsed.data.message ?? parsed.data.Message ?? undefined;
  const namespaced = parsed.data.__type ?? undefined;
  const type = namespaced?.slice(namespaced.lastIndexOf('#') + 1).split(':')[0] || undefined;
  if (message === undefined && type === undefined) return undefined;
  return { message: message ?? 'The upstream provider returned an error.', type };
}
