import { badRequest } from '../../http/gateway-error.ts';
import { isGatewayMadeItem } from '../../translation/responses-to-chat/gateway-made-items.ts';
import { assertOpenaiToolsClientSide } from '../openai-chat/openai-chat-spend-bounds.ts';
import { isRecord } from '../parse-json.ts';
import { cappedAt } from '../spend-bounds.ts';
import type { ResponsesRequest } from './openai-responses-request.ts';

/**
 * What the reservation bounds on the Responses wire (shared/wires/spend-bounds.ts).
 * https://platform.openai.com/docs/api-reference/responses/create
 */

/**
 * Tools the client runs itself: `function` and `custom`, as on the chat wire. The built-in tools — file_search,
 * web_search and web_search_preview (and their dated versions), code_interpreter, computer_use_preview, mcp,
 * image_generation, local_shell, shell, apply_patch, and any added later — are refused.
 */
export function assertResponsesCostBounded(request: ResponsesRequest): void {
  assertOpenaiToolsClientSide(request.tools, 'a built-in tool');
  // A prompt template stored by the vendor adds input that the estimate never saw.
  if (request.prompt !== undefined && request.prompt !== null) {
    throw badRequest(
      'stored_reference_refused',
      '"prompt" refers to a template stored by the vendor; under a finite token allowance send instructions and input.',
    );
  }
  // The vendor keeps generating a background response after the request has ended: past its deadline, past a
  // client that left, and past its concurrency lease, to be polled from storage the gateway does not reach.
  if (request.background === true) {
    throw badRequest(
      'stored_reference_refused',
      'background: true asks the vendor to store the response and generate it after the request has ended; under a finite token allowance send the request without it (streamed if it is long).',
    );
  }
  for (const [position, item] of (Array.isArray(request.input) ? request.input : []).entries()) {
    const stored = storedItemReference(item);
    if (stored !== undefined) {
      throw badRequest(
        'stored_reference_refused',
        `input.${position} is ${stored}, which the vendor fills in from what it stored, input the estimate never saw; under a finite token allowance send the items themselves (a reasoning item with its encrypted_content; with the Vercel AI SDK: providerOptions.openai.store = false).`,
      );
    }
  }
}

/**
 * An input item that names an item the vendor stored rather than holding it: an `item_reference`, or a reasoning
 * item sent by its id without its `encrypted_content` (the vendor then reads its reasoning back from storage). An
 * item the gateway made names nothing the vendor stored: it is left out or refused on its way upstream
 * (gateway-made-items.ts).
 */
function storedItemReference(item: unknown): string | undefined {
  if (!isRecord(item) || isGatewayMadeItem(item)) return undefined;
  if (item.type === 'item_reference') return 'an item_reference';
  const encrypted = item.encrypted_content;
  const holdsReasoning = typeof encrypted === 'string' && encrypted.length > 0;
  if (item.type === 'reasoning' && typeof item.id === 'string' && !holdsReasoning) {
    return 'a reasoning item sent by its id alone';
  }
  return undefined;
}

export function withResponsesOutputCap(body: Record<string, unknown>, cap: number): Record<string, unknown> {
  return { ...body, max_output_tokens: cappedAt(body.max_output_tokens, cap) };
}
