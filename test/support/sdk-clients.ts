import Anthropic, { type ClientOptions as AnthropicOptions } from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI, { type ClientOptions as OpenAIOptions } from 'openai';
import type { TestGateway } from './test-gateway.ts';

/*
 * The official SDKs pointed at the gateway the way each one's users point it at its vendor: openai at `<url>/v1`,
 * @anthropic-ai/sdk at the host itself, @google/genai at the host as its `baseUrl`. Retries are off so that a test
 * sees each answer the gateway gave, not the SDK's second try.
 */

export function openaiClient(gateway: TestGateway, apiKey: string, options: OpenAIOptions = {}): OpenAI {
  return new OpenAI({ apiKey, baseURL: gateway.baseURL, maxRetries: 0, ...options });
}

export function anthropicClient(gateway: TestGateway, apiKey: string, options: AnthropicOptions = {}): Anthropic {
  return new Anthropic({ apiKey, baseURL: gateway.url, maxRetries: 0, ...options });
}

export function googleClient(gateway: TestGateway, apiKey: string): GoogleGenAI {
  return new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gateway.url } });
}
