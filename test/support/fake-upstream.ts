/**
 * A fake model provider on loopback that speaks the real wire formats — OpenAI chat completions and responses,
 * Anthropic messages (and count_tokens), Gemini generate-content — plain and streamed, with programmable
 * failures: errors, hangs, dropped connections, slow or test-released streams, custom or missing usage. It
 * records every request and whether the client closed the connection before the reply finished.
 *
 *   const upstream = await startFakeUpstream();
 *   upstream.nextResponse({ type: 'answer', gate: createStreamGate() });
 *   // point a connection at `${upstream.url}/v1`, drive the gateway, then:
 *   expect(upstream.requests[0]?.headers['authorization']).toBe('Bearer provider-secret');
 *   await upstream.close();
 */
export type {
  AnswerBehaviour,
  ErrorBehaviour,
  FakeToolCall,
  FakeUsage,
  HangBehaviour,
  ReplyPacing,
  UpstreamBehaviour,
} from './fake-upstream/behaviour.ts';
export { defaultFakeUsage } from './fake-upstream/behaviour.ts';
export type { ExchangeOutcome, RecordedRequest } from './fake-upstream/recorded-request.ts';
export type { FakeUpstream, Scenario } from './fake-upstream/server.ts';
export { startFakeUpstream } from './fake-upstream/server.ts';
export type { StreamGateOptions } from './fake-upstream/stream-gate.ts';
export { createStreamGate, StreamGate } from './fake-upstream/stream-gate.ts';
export type { FakeWireName } from './fake-upstream/wire-reply.ts';
