import { GatewayError } from '../../http/gateway-error.ts';

/**
 * The vendor's endpoints for a stored response: `GET` and `DELETE /v1/responses/{id}`, `GET
 * /v1/responses/{id}/input_items`, `POST /v1/responses/{id}/cancel` (also under an upstream prefix).
 * https://platform.openai.com/docs/api-reference/responses/get
 */
const storedResponsePath = /^(\/[^/]+)?\/v1\/responses\/[^/]+(\/input_items|\/cancel)?$/;

/**
 * The gateway keeps no responses, so none can be read, listed, deleted or cancelled: such a request is a 404 with
 * a code of its own, in the OpenAI envelope, rather than "no route". A request names no model, so it cannot be
 * routed to a native Responses connection that stores them either. Undefined for any other request.
 */
export function storedResponseRefusal(method: string, path: string): GatewayError | undefined {
  const match = storedResponsePath.exec(path);
  if (!match) return undefined;
  const operation = match[2];
  const expected = operation === '/cancel' ? ['POST'] : operation === '/input_items' ? ['GET'] : ['GET', 'DELETE'];
  if (!expected.includes(method)) return undefined;
  return new GatewayError(
    404,
    'response_not_stored',
    'The gateway stores no responses, so none can be retrieved, listed, deleted or cancelled; keep the response your request returned, and send the conversation again in input.',
  );
}
