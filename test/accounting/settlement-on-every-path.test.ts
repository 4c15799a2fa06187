import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as renderError from '../../shared/http/render-error.ts';
import * as dispatch from '../../shared/pipeline/dispatch-upstream.ts';
import * as relay from '../../shared/pipeline/relay-event-stream.ts';
import type { UsageRecordStore } from '../../shared/store/store-port.ts';
import * as messagesToChat from '../../shared/translation/chat-to-messages/messages-to-chat-stream.ts';
import { anthropicMessagesUpstreamWire } from '../../shared/wires/anthropic-messages/anthropic-messages-upstream-wire.ts';
import { openaiChatClientWire } from '../../shared/wires/openai-chat/openai-chat-client-wire.ts';
import { openaiChatUpstreamWire } from '../../shared/wires/openai-chat/openai-chat-upstream-wire.ts';
import { useGatewayFixture } from '../support/gateway-fixture.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { memberAfterSettlement, settledRecord } from '../support/usage-records.ts';

/**
 * Every admitted request settles exactly once, whichever stage after admission fails. The store engines are real;
 * a stage is made to throw with a spy, since a real part cannot be made to throw there. Each case then shows the
 * lease released, the record closed with the reservation as its charge, and one settlement for the request.
 */
const fixture = useGatewayFixture({
  connections: [
    { provider: 'acme', wire: 'openai-chat', models: ['acme-1'] },
    { provider: 'alpha', wire: 'anthropic-messages', upstream: 'alpha', path: '/alpha-messages/v1' },
  ],
});
let gateway: TestGateway;

beforeAll(() => {
  ({ gateway } = fixture);
});
afterEach(() => {
  vi.restoreAllMocks();
});

const injected = () => new Error('injected fault');

function throwingOnce<Arguments extends unknown[], Result>(
  object: Record<string, unknown>,
  method: string,
  afterCalls = 0,
): void {
  const original = object[method] as (...parameters: Arguments) => Result;
  let calls = 0;
  vi.spyOn(object as Record<string, (...parameters: Arguments) => Result>, method).mockImplementation(function (
    this: unknown,
    ...parameters: Arguments
  ) {
    calls += 1;
    if (calls === afterCalls + 1) throw injected();
    return original.apply(this, parameters);
  });
}

const chat = { model: 'acme/acme-1', messages: [{ role: 'user', content: 'one two three' }] };
const translated = { model: 'alpha-k2.7-code', messages: [{ role: 'user', content: 'one two three' }] };

/** `completed`: the stage's failure does not touch the answer, which the client receives whole. */
const stages: { name: string; body: Record<string, unknown>; inject: () => void; completed?: true }[] = [
  {
    name: 'the running-record write rejects',
    body: chat,
    completed: true,
    inject: () =>
      vi.spyOn(gateway.host.services.store.records as UsageRecordStore, 'putRunning').mockRejectedValueOnce(injected()),
  },
  {
    name: 'the running-record write throws',
    body: chat,
    completed: true,
    inject: () =>
      vi.spyOn(gateway.host.services.store.records as UsageRecordStore, 'putRunning').mockImplementationOnce(() => {
        throw injected();
      }),
  },
  {
    name: 'dispatch throws',
    body: chat,
    inject: () => vi.spyOn(dispatch, 'dispatchUpstream').mockRejectedValueOnce(injected()),
  },
  {
    name: 'the upstream read throws',
    body: chat,
    inject: () => vi.spyOn(dispatch, 'readUpstreamText').mockRejectedValueOnce(injected()),
  },
  {
    name: 'reading the answer`s usage throws',
    body: chat,
    inject: () => throwingOnce(openaiChatUpstreamWire as unknown as Record<string, unknown>, 'usageOfAnswer'),
  },
  {
    name: 'translating a whole answer throws',
    body: translated,
    inject: () => throwingOnce(anthropicMessagesUpstreamWire as unknown as Record<string, unknown>, 'parseAnswer'),
  },
  {
    name: 'translating a stream throws',
    body: { ...translated, stream: true },
    inject: () =>
      vi.spyOn(messagesToChat, 'createMessagesToChatTransformer').mockReturnValueOnce({
        transform() {
          throw injected();
        },
      }),
  },
  {
    name: 'the relay cannot start',
    body: { ...chat, stream: true },
    inject: () =>
      vi.spyOn(relay, 'relayEventStream').mockImplementationOnce(() => {
        throw injected();
      }),
  },
  {
    name: 'reading an upstream event throws mid-stream',
    body: { ...chat, stream: true },
    inject: () => throwingOnce(openaiChatUpstreamWire as unknown as Record<string, unknown>, 'parseEvent', 2),
  },
  {
    name: 'rendering a translated stream event throws',
    body: { ...translated, stream: true },
    inject: () => throwingOnce(openaiChatClientWire as unknown as Record<string, unknown>, 'encodeEvent', 1),
  },
  {
    name: 'rendering a failure throws',
    body: chat,
    inject: () => {
      vi.spyOn(dispatch, 'readUpstreamText').mockRejectedValueOnce(injected());
      vi.spyOn(renderError, 'renderFailure').mockImplementationOnce(() => {
        throw injected();
      });
    },
  },
];

describe('a stage after admission that throws', () => {
  for (const { name, body, inject, completed } of stages) {
    it(`${name}: the lease is released and the record closed, once`, async () => {
      const services = gateway.host.services;
      const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000, concurrency: 1 });
      const settlements = vi.spyOn(services.store.admission, 'settle');
      inject();
      // Whatever the client sees, it sees an end: a status, a closed stream, or a broken connection.
      const response = await fetch(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).catch(() => undefined);
      await response?.text().catch(() => undefined);
      const requestId = response?.headers.get('x-request-id');
      const member = await memberAfterSettlement(services, memberId);
      expect(member.leases).toEqual({});
      const [settled] = settlements.mock.calls.filter(([closed]) => closed.record.memberId === memberId);
      const id = requestId ?? settled?.[0].record.id;
      expect(id).toBeDefined();
      const record = await settledRecord(services, id!);
      expect(settlements.mock.calls.filter(([closed]) => closed.record.id === id)).toHaveLength(1);
      if (completed) {
        expect(record).toMatchObject({ state: 'completed', source: 'measured' });
      } else {
        expect(record).toMatchObject({ state: 'failed', source: 'conservative' });
        expect(record.charge).toBe(record.reserved);
      }
      expect(Object.values(member.tokenDays)).toEqual([record.charge]);
    });
  }
});
