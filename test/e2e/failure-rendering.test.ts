import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as renderError from '../../shared/http/render-error.ts';
import * as dispatch from '../../shared/pipeline/dispatch-upstream.ts';
import { geminiJsonArrayFraming } from '../../shared/wires/gemini/gemini-json-array-stream.ts';
import { acmeOnEveryWire, useGatewayFixture } from '../support/gateway-fixture.ts';
import { googleApiErrorOf } from '../support/google-refusal.ts';
import { refusal } from '../support/openai-refusal.ts';
import { anthropicClient, openaiClient } from '../support/sdk-clients.ts';
import type { TestGateway } from '../support/test-gateway.ts';
import { memberAfterSettlement, settledRecord } from '../support/usage-records.ts';

/**
 * The inference pipeline answers every request, even when rendering its failure fails: the answer is then the
 * last-resort 500 `internal_error` in the caller's envelope, which each official SDK raises as its own typed error,
 * and an admitted request still settles once (the reservation charged) with its lease released. Rendering is made
 * to throw with a spy, since no real input makes the renderer throw.
 */
const fixture = useGatewayFixture({ connections: acmeOnEveryWire });
let gateway: TestGateway;

beforeAll(() => {
  ({ gateway } = fixture);
});
afterEach(() => {
  vi.restoreAllMocks();
});

const renderingFails = () =>
  vi.spyOn(renderError, 'renderFailure').mockImplementation(() => {
    throw new Error('rendering fault');
  });
const upstreamReadFails = () =>
  vi.spyOn(dispatch, 'readUpstreamText').mockRejectedValueOnce(new Error('injected upstream read fault'));

interface Client {
  name: string;
  /** The request's failure, as the client's SDK raised it: status and machine-readable code. */
  call(key: string, model: string): Promise<{ status: number | undefined; code: unknown }>;
  /** A model of this wire's connection, and one that does not exist (refused before admission). */
  model: string;
}

/** The SDK retries a 500 by default; here the first answer is the one under test. */

const clients: Client[] = [
  {
    name: 'chat completions (openai)',
    model: 'acme/acme-1',
    call: (key, model) =>
      refusal(
        openaiClient(gateway, key).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }),
      ),
  },
  {
    name: 'responses (openai)',
    model: 'acme/acme-r',
    call: (key, model) => refusal(openaiClient(gateway, key).responses.create({ model, input: 'hi' })),
  },
  {
    name: 'messages (anthropic)',
    model: 'acme/acme-m',
    async call(key, model) {
      const anthropic = anthropicClient(gateway, key);
      const error = await anthropic.messages
        .create({ model, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] })
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      if (!(error instanceof Anthropic.APIError)) throw new Error(`expected an APIError, got ${String(error)}`);
      const body = error.error as { type?: string; error?: { code?: string } } | undefined;
      expect(body?.type).toBe('error');
      return { status: error.status, code: body?.error?.code };
    },
  },
  {
    name: 'generate-content (google)',
    model: 'acme/acme-g',
    async call(key, model) {
      const google = new GoogleGenAI({
        apiKey: key,
        httpOptions: { baseUrl: gateway.url, retryOptions: { attempts: 1 } },
      });
      const error = await googleApiErrorOf(google.models.generateContent({ model, contents: 'hi' }));
      const body = JSON.parse(error.message) as { error?: { reason?: string; status?: string } };
      expect(body.error?.status).toBe('INTERNAL');
      return { status: error.status, code: body.error?.reason };
    },
  },
];

describe('a failure whose rendering fails', () => {
  for (const client of clients) {
    it(`${client.name}, before admission: the last-resort 500 in the wire's envelope, nothing reserved`, async () => {
      const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000 });
      const rendering = renderingFails();
      // An unknown model: a 404 whose rendering throws.
      expect(await client.call(key, `${client.model}-missing`)).toEqual({ status: 500, code: 'internal_error' });
      expect(rendering).toHaveBeenCalled();
      const member = await memberAfterSettlement(gateway.host.services, memberId);
      expect(member.leases).toEqual({});
      expect(Object.values(member.tokenDays).filter((tokens) => tokens > 0)).toEqual([]);
    });

    it(`${client.name}, after admission: the last-resort 500, settled once, the member's one slot free`, async () => {
      const services = gateway.host.services;
      const { memberId, key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000, concurrency: 1 });
      const settlements = vi.spyOn(services.store.admission, 'settle');
      upstreamReadFails();
      renderingFails();
      expect(await client.call(key, client.model)).toEqual({ status: 500, code: 'internal_error' });
      const member = await memberAfterSettlement(services, memberId);
      expect(member.leases).toEqual({});
      const mine = settlements.mock.calls.filter(([closed]) => closed.record.memberId === memberId);
      expect(mine).toHaveLength(1);
      const record = await settledRecord(services, mine[0]![0].record.id);
      expect(record).toMatchObject({ state: 'failed', status: 500, source: 'conservative' });
      expect(record.charge).toBe(record.reserved);

      vi.restoreAllMocks();
      // The slot is free: the next request is admitted and answered.
      await expect(
        openaiClient(gateway, key).chat.completions.create({
          model: 'acme/acme-1',
          messages: [{ role: 'user', content: 'again' }],
        }),
      ).resolves.toMatchObject({ object: 'chat.completion' });
    });
  }

  it('a JSON-array stream whose framing of the error fails: the last-resort 500 as plain JSON', async () => {
    const { key } = await gateway.admin.createMemberWithKey({ dailyTokens: 1_000_000 });
    vi.spyOn(geminiJsonArrayFraming, 'errorBody').mockImplementation(() => {
      throw new Error('framing fault');
    });
    const response = await fetch(`${gateway.url}/v1beta/models/acme/acme-missing:streamGenerateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: {
        code: 500,
        message: 'The gateway failed to handle the request.',
        status: 'INTERNAL',
        reason: 'internal_error',
      },
    });
  });
});
