import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseRequest } from '../../../shared/http/parse-request.ts';
import { convertChatRequestToMessages } from '../../../shared/translation/chat-to-messages/convert-to-messages-request.ts';
import {
  callIdCarryingReasoning,
  callIdRewrite,
  readCallId,
  upstreamCallId,
} from '../../../shared/translation/chat-to-messages/reasoning-in-call-id.ts';
import { translatableChatRequestSchema } from '../../../shared/wires/openai-chat/openai-chat-request.ts';
import type { ChatThinkingBlockOut } from '../../../shared/wires/openai-chat/openai-chat-thinking-blocks.ts';
import { upstreamRequestJson } from '../../../shared/wires/upstream-request-json.ts';

const signed: ChatThinkingBlockOut[] = [
  { type: 'thinking', thinking: 'Two cities — «Paris» and 東京.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h+/==' },
  { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw' },
];

describe('a tool call id that carries signed reasoning', () => {
  it('gives back the upstream id and the blocks unchanged, in characters every format allows in an id', () => {
    const id = callIdCarryingReasoning('toolu_01A09q90qw90lq917835lq9', signed);
    expect(id).toMatch(/^toolu_01A09q90qw90lq917835lq9_gwr1_[A-Za-z0-9_-]+$/);
    expect(readCallId(id)).toEqual({ upstreamId: 'toolu_01A09q90qw90lq917835lq9', thinkingBlocks: signed });
  });

  it('is the upstream id itself when there is nothing to carry, and such an id reads as carrying nothing', () => {
    expect(callIdCarryingReasoning('call_abc', [])).toBe('call_abc');
    expect(readCallId('call_abc')).toEqual({ upstreamId: 'call_abc', thinkingBlocks: [] });
  });

  it('reads anything else after the marker as carrying nothing, never as an error', () => {
    const notDeflate = 'toolu_1_gwr1_not-deflate-data';
    const notBlocks = `toolu_1_gwr1_${deflateRawSync('{"type":"thinking"}').toString('base64url')}`;
    const unsigned = `toolu_1_gwr1_${deflateRawSync(JSON.stringify([{ type: 'thinking', thinking: 'x' }])).toString('base64url')}`;
    for (const id of [notDeflate, notBlocks, unsigned, 'toolu_1_gwr1_']) {
      expect(readCallId(id)).toEqual({ upstreamId: 'toolu_1', thinkingBlocks: [] });
    }
  });

  it('refuses to inflate a carrier past any body the gateway would read', () => {
    const bomb = `toolu_1_gwr1_${deflateRawSync(Buffer.alloc(16 * 1024 * 1024, 0x20)).toString('base64url')}`;
    expect(bomb.length).toBeLessThan(100_000);
    expect(readCallId(bomb)).toEqual({ upstreamId: 'toolu_1', thinkingBlocks: [] });
  });
});

describe('what an upstream is sent in place of a carrier', () => {
  const carrying = callIdCarryingReasoning('toolu_1', signed);
  const places = [
    ['messages', 'tool_calls', 'id'],
    ['messages', 'tool_call_id'],
  ];

  it('is the upstream id, read without decoding the blocks; any other id is its own', () => {
    expect(upstreamCallId(carrying)).toBe('toolu_1');
    expect(upstreamCallId('toolu_1_gwr1_not-deflate-data')).toBe('toolu_1');
    expect(upstreamCallId('call_abc')).toBe('call_abc');
  });

  it('replaces every carrier at the places given, in every element of the lists on the way', () => {
    const body = {
      model: 'm',
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: carrying, type: 'function', function: { name: 'get_weather', arguments: '{}' } },
            { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: carrying, content: 'sunny' },
        { role: 'tool', tool_call_id: 'toolu_2', content: 'rain' },
      ],
    };
    const sent = JSON.parse(upstreamRequestJson(body, [callIdRewrite(places)]));
    expect(sent.messages[1].tool_calls.map((call: { id: string }) => call.id)).toEqual(['toolu_1', 'toolu_2']);
    expect(sent.messages.slice(2).map((message: { tool_call_id: string }) => message.tool_call_id)).toEqual([
      'toolu_1',
      'toolu_2',
    ]);
    expect({ ...sent, messages: undefined }).toEqual({ ...body, messages: undefined });
    // The client's body is left as it came.
    expect(body.messages[2]).toMatchObject({ tool_call_id: carrying });
  });

  it('is the body`s plain JSON when nothing carries reasoning, even text that names the marker', () => {
    const plain = { model: 'm', messages: [{ role: 'user', content: 'ids like toolu_1_gwr1_abc' }], n: 1 };
    expect(upstreamRequestJson(plain, [callIdRewrite(places)])).toBe(JSON.stringify(plain));
    const odd = { messages: 'not a list', other: [{ tool_call_id: carrying }] };
    expect(upstreamRequestJson(odd, [callIdRewrite(places)])).toBe(JSON.stringify(odd));
  });
});

describe('the next turn of a chat client, to the messages upstream', () => {
  const carrying = callIdCarryingReasoning('toolu_1', signed);
  const convert = (assistant: Record<string, unknown>) =>
    convertChatRequestToMessages(
      parseRequest(translatableChatRequestSchema, {
        model: 'alpha/alpha-k2.7-code',
        messages: [
          { role: 'user', content: 'Weather in Paris and Tokyo?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: carrying, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' } },
            ],
            ...assistant,
          },
          { role: 'tool', tool_call_id: carrying, content: 'sunny' },
          { role: 'tool', tool_call_id: 'toolu_2', content: 'rain' },
        ],
      }),
      { upstreamModel: 'alpha-for-coding', maxTokensDefault: 4_000 },
    ).messages;

  it('begins the assistant turn with the carried blocks when it has none of its own, and uses the upstream ids', () => {
    // As the AI SDK and LangChain send it back: no thinking_blocks, no reasoning_content.
    expect(convert({})).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Tokyo?' }] },
      {
        role: 'assistant',
        content: [
          ...signed,
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Tokyo' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'rain' },
        ],
      },
    ]);
  });

  it('takes the carried signed blocks over reasoning_content, which is only their text', () => {
    expect(convert({ reasoning_content: 'Two cities.' })[1]?.content.slice(0, 2)).toEqual(signed);
  });

  it("takes the message's own thinking_blocks first", () => {
    const own = [{ type: 'thinking', thinking: 'Mine.', signature: 'sig-own' }];
    expect(convert({ thinking_blocks: own })[1]?.content[0]).toEqual(own[0]);
    expect(convert({ thinking_blocks: own })[1]?.content[1]).toMatchObject({ type: 'tool_use', id: 'toolu_1' });
  });
});
