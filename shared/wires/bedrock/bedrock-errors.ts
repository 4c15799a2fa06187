import { parseJson } from '../parse-json.ts';

/**
 * Bedrock's errors in the messages format. Before the first byte Bedrock answers `{ "message": … }` with the
 * exception's name in `x-amzn-ErrorType` (`ThrottlingException:http://internal.amazon.com/…`) and its own status
 * (429, 400, 403, 404, 408, 424, 500, 503); inside a stream it sends an exception frame whose `:exception-type`
 * names it in camel case (`throttlingException`). Both become the messages error a messages client parses, the
 * status kept as Bedrock gave it, Bedrock's exception name first in the message so the caller sees what AWS said.
 */

/** The messages-format error type of a Bedrock exception (by name, any case) or, failing that, of its status. */
export function messagesErrorTypeOf(exception: string | undefined, status: number | undefined): string {
  switch (exception?.toLowerCase()) {
    case 'throttlingexception':
    case 'servicequotaexceededexception':
    case 'modelnotreadyexception':
      return 'rate_limit_error';
    case 'validationexception':
      return 'invalid_request_error';
    case 'accessdeniedexception':
      return 'permission_error';
    case 'unrecognizedclientexception':
    case 'invalidsignatureexception':
    case 'expiredtokenexception':
    case 'incompletesignatureexception':
      return 'authentication_error';
    case 'resourcenotfoundexception':
      return 'not_found_error';
    case 'serviceunavailableexception':
      return 'overloaded_error';
    case undefined:
      break;
    default:
      return 'api_error';
  }
  if (status === 429) return 'rate_limit_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  return status !== undefined && status < 500 ? 'invalid_request_error' : 'api_error';
}

/** `ThrottlingException:http://internal.amazon.com/coral/…` → `ThrottlingException`. */
export function exceptionName(errorTypeHeader: string | null | undefined): string | undefined {
  const name = errorTypeHeader?.split(':')[0]?.trim();
  return name ? name : undefined;
}

/** Bedrock's `message` (AWS writes it `message` or `Message`), or a plain word when the body has none. */
export function bedrockMessageOf(text: string): string | undefined {
  const body = parseJson(text);
  if (typeof body !== 'object' || body === null) return undefined;
  const { message, Message } = body as { message?: unknown; Message?: unknown };
  const found = typeof message === 'string' ? message : typeof Message === 'string' ? Message : undefined;
  return found?.slice(0, 2_000);
}

/** The messages error body of a Bedrock exception. */
export function messagesErrorJson(
  exception: string | undefined,
  status: number | undefined,
  message: string | undefined,
) {
  const said = message ?? 'Amazon Bedrock answered with an error.';
  return JSON.stringify({
    type: 'error',
    error: {
      type: messagesErrorTypeOf(exception, status),
      message: exception === undefined ? said : `${pascalCase(exception)}: ${said}`,
    },
  });
}

/** A stream's `throttlingException` named as the header names it, so both read alike. */
function pascalCase(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** An error answer before the first byte, in the messages envelope. */
export function bedrockErrorText(status: number, header: (name: string) => string | null, text: string): string {
  return messagesErrorJson(exceptionName(header('x-amzn-errortype')), status, bedrockMessageOf(text));
}
