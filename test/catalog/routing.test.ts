import { describe, expect, it } from 'vitest';
import { ConnectionRotation, chosenUpstream } from '../../shared/catalog/choose-connection.ts';
import { knownModels } from '../../shared/catalog/known-models.ts';
import { resolveModel } from '../../shared/catalog/resolve-model.ts';
import { GatewayError } from '../../shared/http/gateway-error.ts';
import type { ConnectionItem } from '../../shared/store/control-items.ts';

const prefixes = ['lb', 'lb2', 'alpha', 'beta', 'gamma'];

function connection(overrides: Partial<ConnectionItem>): ConnectionItem {
  return {
    id: 'con_x',
    provider: 'openai',
    wire: 'openai-chat',
    baseUrl: 'http://127.0.0.1:1/v1',
    models: ['gpt-test'],
    modelLimits: [],
    upstream: 'lb',
    privateNetwork: false,
    enabled: true,
    version: 1,
    createdAt: '2026-11-21T00:00:00.000Z',
    secretName: 'connections/con_x',
    ...overrides,
  };
}

function errorOf(action: () => unknown): GatewayError {
  try {
    action();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe('model resolution (spec §4.3)', () => {
  const models = knownModels([
    connection({ id: 'a', provider: 'openai', models: ['gpt-test', 'shared-name'] }),
    connection({ id: 'b', provider: 'other', models: ['shared-name'] }),
  ]);

  it('resolves provider/model ids, catalog aliases and unique bare names', () => {
    expect(resolveModel('openai/gpt-test', models, prefixes).model.publicId).toBe('openai/gpt-test');
    expect(resolveModel('gpt-test', models, prefixes).model.publicId).toBe('openai/gpt-test');
    expect(resolveModel('alpha-k3', models, prefixes).model.upstreamModel).toBe('k3');
    expect(resolveModel('alpha/alpha-k3', models, prefixes).modelUpstream).toBeUndefined();
  });

  it('refuses an ambiguous bare name with 400 and an unknown one with 404', () => {
    expect(errorOf(() => resolveModel('shared-name', models, prefixes))).toMatchObject({
      status: 400,
      code: 'ambiguous_model',
    });
    expect(errorOf(() => resolveModel('nope', models, prefixes))).toMatchObject({ status: 404, code: 'unknown_model' });
    expect(errorOf(() => resolveModel('nope/gpt-test', models, prefixes))).toMatchObject({ status: 404 });
  });

  it('reads an upstream prefix in front of a model id', () => {
    const resolved = resolveModel('lb2/openai/gpt-test', models, prefixes);
    expect(resolved.model.publicId).toBe('openai/gpt-test');
    expect(resolved.modelUpstream).toBe('lb2');
  });
});

describe('upstream choice', () => {
  it('accepts one choice, or several that agree, and refuses disagreement', () => {
    const none = { modelUpstream: undefined, pathUpstream: undefined, headerUpstream: undefined };
    expect(chosenUpstream(none, prefixes)).toBeUndefined();
    expect(chosenUpstream({ ...none, pathUpstream: 'lb2', headerUpstream: 'lb2' }, prefixes)).toBe('lb2');
    expect(
      errorOf(() => chosenUpstream({ ...none, modelUpstream: 'lb', pathUpstream: 'lb2' }, prefixes)),
    ).toMatchObject({
      status: 400,
      code: 'conflicting_upstream',
    });
    expect(errorOf(() => chosenUpstream({ ...none, headerUpstream: 'nowhere' }, prefixes))).toMatchObject({
      code: 'invalid_upstream',
    });
  });
});

describe('connection rotation', () => {
  const connections = [
    connection({ id: 'first', createdAt: '2026-01-01T00:00:00.000Z' }),
    connection({ id: 'second', createdAt: '2026-01-02T00:00:00.000Z' }),
    connection({ id: 'disabled', enabled: false }),
    connection({ id: 'elsewhere', upstream: 'lb2' }),
  ];
  const [model] = knownModels(connections).filter((known) => known.publicId === 'openai/gpt-test');

  it('alternates over the enabled connections of the chosen upstream and never picks a disabled one', () => {
    const rotation = new ConnectionRotation();
    const picks = Array.from(
      { length: 6 },
      () => rotation.choose({ connections, model: model!, wire: 'openai-chat', upstream: undefined }).id,
    );
    expect(new Set(picks)).toEqual(new Set(['first', 'second']));
    expect(picks[0]).not.toBe(picks[1]);
    expect(picks[1]).not.toBe(picks[2]);
    expect(rotation.choose({ connections, model: model!, wire: 'openai-chat', upstream: 'lb2' }).id).toBe('elsewhere');
  });

  it('refuses a wire no connection of the model speaks with 400', () => {
    const rotation = new ConnectionRotation();
    expect(
      errorOf(() => rotation.choose({ connections, model: model!, wire: 'gemini', upstream: undefined })),
    ).toMatchObject({ status: 400, code: 'unsupported_wire' });
  });
});

describe('the known models of a connection list', () => {
  it('are worked out once per list the connection cache hands out, and again for a new list', () => {
    const list = [connection({ id: 'a', models: ['gpt-test'] })];
    const first = knownModels(list);
    expect(knownModels(list)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const reloaded = [connection({ id: 'a', models: ['gpt-test', 'gpt-new'] })];
    const second = knownModels(reloaded);
    expect(second).not.toBe(first);
    expect(second.map((model) => model.publicId)).toEqual(expect.arrayContaining(['openai/gpt-new']));
    expect(first.map((model) => model.publicId)).not.toContain('openai/gpt-new');
  });
});
