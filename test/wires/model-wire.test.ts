import { describe, expect, it } from 'vitest';
import { foundationModelOf } from '../../shared/wires/bedrock/bedrock-runtime-api.ts';
import { upstreamWireOfModel } from '../../shared/wires/model-wire.ts';

/**
 * On a Bedrock connection the wire is the model's: Anthropic's models and their inference profiles (and ARNs naming
 * either) take InvokeModel in the messages format; every other model Converse. Other connections' models take the
 * connection's wire, whatever their names.
 */
describe('the wire a model is called in', () => {
  it.each([
    'anthropic.claude-sonnet-4-5-20250929-v1:0',
    'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    'global.anthropic.claude-haiku-4-5-20251001-v1:0',
    'apac.anthropic.claude-3-5-sonnet-20240620-v1:0',
    'us-gov.anthropic.claude-3-haiku-20240307-v1:0',
    'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0',
  ])('%s: InvokeModel (the messages format)', (model) => {
    expect(upstreamWireOfModel('bedrock', model)).toBe('bedrock');
  });

  it.each([
    'amazon.nova-lite-v1:0',
    'us.amazon.nova-pro-v1:0',
    'meta.llama3-3-70b-instruct-v1:0',
    'mistral.mistral-large-2407-v1:0',
    'us.deepseek.r1-v1:0',
    'moonshotai.kimi-k2-thinking',
    'qwen.qwen3-32b-v1:0',
    'openai.gpt-oss-120b-1:0',
    // An application inference profile names no model: Converse, which takes every model, Anthropic's too.
    'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6',
    // Not a prefix of a geography: a model whose name merely holds "anthropic".
    'example.anthropic-like-model-v1:0',
  ])('%s: Converse', (model) => {
    expect(upstreamWireOfModel('bedrock', model)).toBe('bedrock-converse');
  });

  it('leaves every other connection’s wire as it is', () => {
    expect(upstreamWireOfModel('openai-chat', 'amazon.nova-lite-v1:0')).toBe('openai-chat');
    expect(upstreamWireOfModel('anthropic-messages', 'claude-sonnet-4-5')).toBe('anthropic-messages');
    expect(upstreamWireOfModel('gemini', 'gemini-2.5-pro')).toBe('gemini');
  });

  it('counts an inference profile, or an ARN, on its foundation model', () => {
    expect(foundationModelOf('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(
      'anthropic.claude-sonnet-4-5-20250929-v1:0',
    );
    expect(
      foundationModelOf(
        'arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.anthropic.claude-haiku-4-5-20251001-v1:0',
      ),
    ).toBe('anthropic.claude-haiku-4-5-20251001-v1:0');
    expect(foundationModelOf('anthropic.claude-haiku-4-5-20251001-v1:0')).toBe(
      'anthropic.claude-haiku-4-5-20251001-v1:0',
    );
    expect(foundationModelOf('amazon.nova-lite-v1:0')).toBe('amazon.nova-lite-v1:0');
  });
});
