import { badRequest, type GatewayError } from '../../http/gateway-error.ts';
import type { TranslatableResponsesRequest } from '../../wires/openai-responses/openai-responses-request.ts';

/**
 * The gateway stores no responses and no conversations, so on a translated route whatever refers to state the
 * server would hold is refused with one code, `stored_state_unsupported`, and says what to send instead. (A
 * native Responses connection passes it through to a provider that does store, unless a finite allowance
 * refuses it first: `stored_reference_refused`.)
 */
export function storedStateUnsupported(what: string, why: string): GatewayError {
  return badRequest('stored_state_unsupported', `${what}: ${why}. The gateway stores no responses or conversations.`);
}

const sendTheConversation = 'send the whole conversation in input instead';

/**
 * `store` absent means not stored here: the vendor defaults it to true, but the official SDKs send nothing unless
 * told, and refusing their plain requests would help no one; the answer says `store: false`. `store: true`, asked
 * for in so many words, is refused: the caller expects to retrieve or continue the response later.
 */
export function refuseStoredState(request: TranslatableResponsesRequest): void {
  if (request.store === true) {
    throw storedStateUnsupported(
      'store: true',
      'a stored response could not be retrieved or continued; send store: false',
    );
  }
  if (request.previous_response_id) {
    throw storedStateUnsupported(
      'previous_response_id',
      `it continues a response stored by the server; ${sendTheConversation}`,
    );
  }
  if (request.conversation !== undefined && request.conversation !== null) {
    throw storedStateUnsupported(
      'conversation',
      `it names a conversation stored by the server; ${sendTheConversation}`,
    );
  }
  if (request.prompt !== undefined && request.prompt !== null) {
    throw storedStateUnsupported(
      'prompt',
      'it names a prompt template stored by the vendor; send instructions and input instead',
    );
  }
  if (request.background === true) {
    throw storedStateUnsupported(
      'background: true',
      'a background response is stored and polled; send the request without it, streamed if it is long',
    );
  }
}
