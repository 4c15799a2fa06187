import { beforeAll, describe, expect, it } from 'vitest';
import type { ClientWire, ConnectionWire } from '../../shared/wires/wire-names.ts';
import { acmeOnEveryWire, alphaRoutes, useGatewayFixture } from '../support/gateway-fixture.ts';
import { postJson, type TestGateway } from '../support/test-gateway.ts';

/**
 * Which wires each model offers stays true: for a model on a connection of every upstream wire, and for every one
 * of the catalog's models on its route, every inference client wire either answers (200) or is refused with 400
 * `unsupported_wire` in that client's envelope, and `/v1/models` lists exactly the wires that answer.
 */
const fixture = useGatewayFixture({
  connections: [
    ...acmeOnEveryWire,
    ...alphaRoutes,
    { provider: 'beta', wire: 'openai-chat', upstream: 'beta' },
    { provider: 'gamma', wire: 'openai-chat', upstream: 'gamma' },
  ],
});
let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  ({ gateway } = fixture);
  ({ key } = await gateway.admin.createMemberWithKey());
});

type InferenceWire = Extract<ClientWire, 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini'>;

/** One request of each client wire for a model, and where its refusal's code sits in that wire's envelope. */
const clientRequests: Record<InferenceWire, (model: string) => { path: string; body: unknown }> = {
  'openai-chat': (model) => ({
    path: '/v1/chat/completions',
    body: { model, messages: [{ role: 'user', content: 'hi' }] },
  }),
  'openai-responses': (model) => ({ path: '/v1/responses', body: { model, input: 'hi' } }),
  'anthropic-messages': (model) => ({
    path: '/v1/messages',
    body: { model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
  }),
  gemini: (model) => ({
    path: `/v1beta/models/${model}:generateContent`,
    body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
  }),
};

/** The refusal's machine-readable code: `error.code` in the OpenAI and messages envelopes, `error.reason` in Google's. */
function codeOf(wire: InferenceWire, body: unknown): unknown {
  const error = (body as { error?: { code?: unknown; reason?: unknown } }).error;
  return wire === 'gemini' ? error?.reason : error?.code;
}

/** What each connection wire answers for a model it declares: the same wire, and what the translation paths reach. */
const declaredModels: Record<ConnectionWire, { model: string; answers: InferenceWire[] }> = {
  'openai-chat': { model: 'acme/acme-1', answers: ['openai-chat', 'openai-responses', 'anthropic-messages'] },
  'openai-responses': { model: 'acme/acme-r', answers: ['openai-responses'] },
  'anthropic-messages': { model: 'acme/acme-m', answers: ['openai-chat', 'openai-responses', 'anthropic-messages'] },
  gemini: { model: 'acme/acme-g', answers: ['gemini'] },
};

/** The catalog's models on their routes: what their catalog entry offers and their route reaches. */
const catalogModels: Record<string, InferenceWire[]> = {
  'alpha/alpha-k3': ['openai-chat', 'openai-responses', 'anthropic-messages'],
  'alpha/alpha-k3-256k': ['openai-chat', 'openai-responses', 'anthropic-messages'],
  'alpha/alpha-k2.7-code': ['openai-chat', 'openai-responses', 'anthropic-messages'],
  'alpha/alpha-k2.7-code-highspeed': ['openai-chat', 'openai-responses', 'anthropic-messages'],
  'beta/beta-4-31b': ['openai-chat', 'openai-responses', 'anthropic-messages'],
  'gamma/gamma': ['openai-chat', 'openai-responses', 'anthropic-messages'],
};

const inferenceWires = Object.keys(clientRequests) as InferenceWire[];

async function listedWires(): Promise<Map<string, string[]>> {
  const response = await fetch(`${gateway.baseURL}/models`, { headers: { authorization: `Bearer ${key}` } });
  const { data } = (await response.json()) as { data: { id: string; wires: string[] }[] };
  return new Map(data.map((model) => [model.id, model.wires]));
}

async function expectWires(model: string, answers: readonly InferenceWire[], listed: Map<string, string[]>) {
  expect(
    listed
      .get(model)
      ?.filter((wire) => (inferenceWires as string[]).includes(wire))
      .sort(),
  ).toEqual([...answers].sort());
  for (const wire of inferenceWires) {
    const { path, body } = clientRequests[wire](model);
    const response = await postJson(gateway, key, path, body);
    const answer: unknown = await response.json();
    if (answers.includes(wire)) {
      expect(response.status, `${model} on ${wire}: ${JSON.stringify(answer)}`).toBe(200);
    } else {
      expect(response.status, `${model} on ${wire}`).toBe(400);
      expect(codeOf(wire, answer), `${model} on ${wire}: ${JSON.stringify(answer)}`).toBe('unsupported_wire');
    }
  }
}

describe('every connection wire × every client wire', () => {
  for (const [connectionWire, { model, answers }] of Object.entries(declaredModels)) {
    it(`a model declared on a ${connectionWire} connection answers ${answers.join(', ')} and refuses the rest`, async () => {
      await expectWires(model, answers, await listedWires());
    });
  }

  it("the catalog's models answer what their entry offers on their routes, and refuse the rest", async () => {
    const listed = await listedWires();
    for (const [model, answers] of Object.entries(catalogModels)) await expectWires(model, answers, listed);
  });
});
