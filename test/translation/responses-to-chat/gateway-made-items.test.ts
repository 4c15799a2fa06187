import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../shared/http/gateway-error.ts';
import { newId } from '../../../shared/store/ids.ts';
import {
  isGatewayItemId,
  outputItemId,
  responseId,
} from '../../../shared/translation/responses-to-chat/build-response.ts';
import {
  gatewayItemsRewrite,
  isGatewayMadeItem,
} from '../../../shared/translation/responses-to-chat/gateway-made-items.ts';
import { encodeReasoningState } from '../../../shared/translation/responses-to-chat/reasoning-state.ts';
import { upstreamRequestJson } from '../../../shared/wires/upstream-request-json.ts';

/** Ids as a gateway request's answer gives them. */
const answerId = responseId(newId('req'));
const gatewayId = (kind: 'msg' | 'fc' | 'ctc' | 'rs', position: number) => outputItemId(kind, answerId, position);
const gatewayState = encodeReasoningState({ text: 'Call the tool.' });

/** A turn of the vendor's, with the ids and the encrypted state it issued. */
const vendorTurn = [
  { type: 'reasoning', id: 'rs_68a3f0c1d2e40819a1b2c3d4', summary: [], encrypted_content: 'gAAAAABo-vendor-state' },
  { type: 'message', id: 'msg_68a3f0c1d2e40819a1b2c3d5', role: 'assistant', content: 'Hello!' },
  { type: 'item_reference', id: 'rs_68a3f0c1d2e40819a1b2c3d6' },
];

const written = (input: unknown[]) =>
  JSON.parse(upstreamRequestJson({ model: 'gpt-5', input }, [gatewayItemsRewrite])) as { input: unknown[] };

describe('the gateway`s item ids', () => {
  it('are told from any vendor`s by their form', () => {
    for (const kind of ['msg', 'fc', 'ctc', 'rs'] as const) expect(isGatewayItemId(gatewayId(kind, 12))).toBe(true);
    for (const id of ['rs_68a3f0c1d2e40819a1b2c3d4', 'msg_abc', 'fc_req_short_1', 'call_req_Od_L-8iE5w8TtTll_0', 7]) {
      expect(isGatewayItemId(id)).toBe(false);
    }
  });
});

describe('a Responses history on its way to a native Responses connection', () => {
  it('leaves out the reasoning the gateway made, whether it carries the gateway`s state, an id, or both', () => {
    const input = [
      { role: 'user', content: 'Weather?' },
      { type: 'reasoning', id: gatewayId('rs', 0), summary: [], encrypted_content: gatewayState },
      {
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'Codex sends no id.' }],
        encrypted_content: gatewayState,
      },
      { type: 'reasoning', id: gatewayId('rs', 2), summary: [{ type: 'summary_text', text: 'By its id alone.' }] },
      { type: 'item_reference', id: gatewayId('rs', 3) },
      { type: 'function_call_output', call_id: 'call_1', output: 'Sunny' },
    ];
    expect(written(input).input).toEqual([input[0], input[5]]);
  });

  it('takes the gateway`s ids off the other items it made, and keeps their content', () => {
    const call = { type: 'function_call', call_id: 'toolu_1', name: 'get_weather', arguments: '{}' };
    const message = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Looking.' }] };
    const custom = { type: 'custom_tool_call', call_id: 'toolu_2', name: 'apply_patch', input: '*** Begin Patch' };
    expect(
      written([
        { ...message, id: gatewayId('msg', 1) },
        { ...call, id: gatewayId('fc', 2) },
        { ...custom, id: gatewayId('ctc', 3) },
      ]).input,
    ).toEqual([message, call, custom]);
  });

  it('keeps what the vendor issued as it came, beside the gateway`s own', () => {
    const input = [
      ...vendorTurn,
      { type: 'reasoning', id: gatewayId('rs', 0), summary: [], encrypted_content: gatewayState },
    ];
    expect(written(input).input).toEqual(vendorTurn);
    expect(written(vendorTurn).input).toEqual(vendorTurn);
  });

  it('refuses a reference to a message or a call the gateway made, which no server stored', () => {
    const refusal = (() => {
      try {
        written([
          { role: 'user', content: 'Hi' },
          { type: 'item_reference', id: gatewayId('msg', 1) },
        ]);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(GatewayError);
    expect(refusal).toMatchObject({ status: 400, code: 'stored_state_unsupported' });
    expect((refusal as Error).message).toContain('input.1');
  });

  it('walks only a body whose JSON holds the gateway`s state or ids', () => {
    const body = { model: 'gpt-5', input: vendorTurn, instructions: 'Answer briefly.' };
    expect(upstreamRequestJson(body, [gatewayItemsRewrite])).toBe(JSON.stringify(body));
    expect(gatewayItemsRewrite.markers.some((marker) => gatewayState.includes(marker))).toBe(true);
    for (const kind of ['msg', 'fc', 'ctc', 'rs'] as const) {
      expect(gatewayItemsRewrite.markers.some((marker) => gatewayId(kind, 0).includes(marker))).toBe(true);
    }
    // Text that happens to hold a marker is walked, and goes up as it came.
    const mentions = { model: 'gpt-5', input: [{ role: 'user', content: 'what is gateway-reasoning.v1. or _req_?' }] };
    expect(upstreamRequestJson(mentions, [gatewayItemsRewrite])).toBe(JSON.stringify(mentions));
  });
});

describe('isGatewayMadeItem', () => {
  it('tells the items the gateway made, which name nothing a vendor stored', () => {
    expect(isGatewayMadeItem({ type: 'item_reference', id: gatewayId('rs', 0) })).toBe(true);
    expect(isGatewayMadeItem({ type: 'reasoning', summary: [], encrypted_content: gatewayState })).toBe(true);
    expect(isGatewayMadeItem({ type: 'message', id: gatewayId('msg', 1), role: 'assistant', content: 'Hi' })).toBe(
      true,
    );
    for (const item of [...vendorTurn, { role: 'user', content: 'Hi' }, 'text', null]) {
      expect(isGatewayMadeItem(item)).toBe(false);
    }
  });
});
