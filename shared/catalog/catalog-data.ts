import type { InputModality } from '../wires/input-media.ts';
import type { ClientWire, UpstreamWire } from '../wires/wire-names.ts';

/**
 * A model the gateway knows by itself (spec §2.2). Connections may declare more models; those carry no limits
 * of their own. Prices are data for display only: the usage view shows no cost (spec §4.6 rule 6).
 */
export interface CatalogModel {
  /** `provider/model`, derived from the two. */
  publicId: string;
  provider: string;
  /** The bare id; a request may name the model by it alone when no other provider has it. */
  model: string;
  name: string;
  /** The name the upstream knows; the original id when the spec states none. */
  upstreamModel: string;
  contextWindow: number | null;
  maxOutput: number | null;
  /** What the model takes as input (spec §2.2 "Multimodal input"; "not stated" is text alone). */
  inputModalities: InputModality[];
  reasoningEffort: { supported: string[]; default: string } | null;
  thinkingRequired: boolean;
  priceUsdPerMillionTokens: { input: number; output: number } | null;
  /** The client wires this model can be called with. */
  wires: ClientWire[];
  /** The upstream prefix this model goes to when the caller chooses none (spec §4.3 rule 8). */
  upstreamMarker: string | null;
  /**
   * The wire of this model's upstream route: a connection that lists no models serves the catalog models of its
   * provider whose route speaks its wire (the alpha family has a chat-style and a messages-style route).
   */
  upstreamWire: UpstreamWire;
  holderPerk: 'available' | 'paused' | 'none';
}

const alphaEffort = { supported: ['low', 'high', 'max'], default: 'high' };

const catalogEntries: readonly Omit<CatalogModel, 'publicId'>[] = [
  {
    provider: 'alpha',
    model: 'alpha-k3',
    name: 'Alpha K3',
    upstreamModel: 'k3',
    contextWindow: 1_048_576,
    maxOutput: null,
    inputModalities: ['text', 'image', 'video'],
    reasoningEffort: alphaEffort,
    thinkingRequired: true,
    priceUsdPerMillionTokens: { input: 0.75, output: 3.5 },
    wires: ['openai-chat', 'openai-responses', 'anthropic-messages'],
    upstreamMarker: 'alpha',
    upstreamWire: 'openai-chat',
    holderPerk: 'paused',
  },
  {
    provider: 'alpha',
    model: 'alpha-k3-256k',
    name: 'Alpha K3 256K',
    upstreamModel: 'k3-256k',
    contextWindow: 262_144,
    maxOutput: null,
    inputModalities: ['text', 'image'],
    reasoningEffort: alphaEffort,
    thinkingRequired: true,
    priceUsdPerMillionTokens: { input: 0.75, output: 3.5 },
    wires: ['openai-chat', 'openai-responses', 'anthropic-messages'],
    upstreamMarker: 'alpha',
    upstreamWire: 'openai-chat',
    holderPerk: 'paused',
  },
  {
    provider: 'alpha',
    model: 'alpha-k2.7-code',
    name: 'Alpha K2.7 Code',
    upstreamModel: 'alpha-for-coding',
    contextWindow: 262_144,
    maxOutput: null,
    inputModalities: ['text', 'image', 'video'],
    reasoningEffort: null,
    thinkingRequired: true,
    priceUsdPerMillionTokens: { input: 0.75, output: 3.5 },
    wires: ['openai-chat', 'openai-responses', 'anthropic-messages'],
    upstreamMarker: 'alpha',
    upstreamWire: 'anthropic-messages',
    holderPerk: 'paused',
  },
  {
    provider: 'alpha',
    model: 'alpha-k2.7-code-highspeed',
    name: 'Alpha K2.7 Code HighSpeed',
    upstreamModel: 'alpha-for-coding-highspeed',
    contextWindow: 262_144,
    maxOutput: null,
    inputModalities: ['text', 'image', 'video'],
    reasoningEffort: null,
    thinkingRequired: true,
    priceUsdPerMillionTokens: { input: 2.25, output: 10.5 },
    wires: ['openai-chat', 'openai-responses', 'anthropic-messages'],
    upstreamMarker: 'alpha',
    upstreamWire: 'anthropic-messages',
    holderPerk: 'paused',
  },
  {
    provider: 'beta',
    model: 'beta-4-31b',
    name: 'Beta 4 31B',
    upstreamModel: 'beta-4-31b',
    contextWindow: 131_000,
    maxOutput: 32_768,
    inputModalities: ['text'],
    reasoningEffort: null,
    thinkingRequired: false,
    priceUsdPerMillionTokens: { input: 1.0, output: 1.5 },
    wires: ['openai-chat', 'openai-responses', 'anthropic-messages'],
    upstreamMarker: 'beta',
    upstreamWire: 'openai-chat',
    holderPerk: 'available',
  },
  {
    provider: 'gamma',
    model: 'gamma',
    name: 'Gamma (experimental)',
    upstreamModel: 'gamma',
    contextWindow: null,
    maxOutput: null,
    inputModalities: ['text'],
    reasoningEffort: null,
    thinkingRequired: false,
    priceUsdPerMillionTokens: null,
    wires: ['openai-chat', 'openai-responses', 'anthropic-messages'],
    upstreamMarker: 'gamma',
    upstreamWire: 'openai-chat',
    holderPerk: 'none',
  },
];

export const catalogModels: readonly CatalogModel[] = catalogEntries.map((entry) => ({
  ...entry,
  publicId: `${entry.provider}/${entry.model}`,
}));

/**
 * The model id the holder policy record gives (spec §2.3): the model's route prefix joined to its id by a hyphen,
 * `beta-beta-4-31b`. It is accepted on requests as another name of the model.
 */
export function holderPolicyModelId(entry: CatalogModel): string | undefined {
  if (entry.holderPerk !== 'available' || entry.upstreamMarker === null) return undefined;
  return `${entry.upstreamMarker}-${entry.model}`;
}
