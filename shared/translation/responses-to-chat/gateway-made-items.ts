import { isRecord } from '../../wires/parse-json.ts';
import type { UpstreamBodyRewrite } from '../../wires/upstream-request-json.ts';
import { gatewayItemIdMarker, isGatewayItemId } from './build-response.ts';
import { isGatewayReasoningState, reasoningStatePrefix } from './reasoning-state.ts';
import { storedStateUnsupported } from './stored-state.ts';

/**
 * What the Responses translation gives its clients that no upstream issued: item ids (`rs_…`, `msg_…`, `fc_…`,
 * `ctc_…`, build-response.ts) and reasoning items whose `encrypted_content` is the gateway's encoding of the
 * model's reasoning (reasoning-state.ts). A client sends them back with its history, and may send that history to
 * a native Responses connection next: an agent that switches model midway (a fallback, the AI SDK's `prepareStep`,
 * Codex CLI switching models). The vendor cannot decrypt what it did not encrypt and refuses the request (400
 * `invalid_encrypted_content`), and looks up the items an id names where it must read them from storage (a
 * reasoning item sent by its id alone, an `item_reference`), which it never issued (404 "Item with id … not
 * found", and with `store: false` "Items are not persisted").
 *
 * So the body such a connection gets holds none of them: a reasoning item the gateway made is left out, as it is
 * another model's reasoning, which the vendor's model could not read anyway; so is a reference to one; another item
 * keeps its content and loses the id (an input item needs none: outputs find their calls by `call_id`); and a
 * reference to a message or a call the gateway made is refused, as on the translated route, since no server holds
 * what it names.
 */

/** An input item the gateway made, which names nothing a vendor stored. */
export function isGatewayMadeItem(item: unknown): boolean {
  return isRecord(item) && (isGatewayItemId(item.id) || isGatewayReasoning(item));
}

function isGatewayReasoning(item: Record<string, unknown>): boolean {
  return item.type === 'reasoning' && (isGatewayReasoningState(item.encrypted_content) || isGatewayItemId(item.id));
}

/** The rewrite of a Responses body for a native Responses upstream; only a body that holds a marker is walked. */
export const gatewayItemsRewrite: UpstreamBodyRewrite = {
  markers: [reasoningStatePrefix, gatewayItemIdMarker],
  rewrite(body) {
    if (!Array.isArray(body.input)) return body;
    return { ...body, input: body.input.flatMap((item, position) => upstreamItems(item, position)) };
  },
};

/** What goes upstream of one input item: none, or the item without the gateway's id. */
function upstreamItems(item: unknown, position: number): unknown[] {
  if (!isRecord(item)) return [item];
  if (isGatewayReasoning(item)) return [];
  if (!isGatewayItemId(item.id)) return [item];
  if (item.type === 'item_reference') {
    if (item.id.startsWith('rs_')) return [];
    throw storedStateUnsupported(
      `input.${position} is an item_reference to ${item.id}, an item of an answer the gateway translated`,
      'no server stored it; send the item itself',
    );
  }
  const { id: _gatewayId, ...withoutId } = item;
  return [withoutId];
}
