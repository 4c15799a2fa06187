import { loadOnce } from '../../async-work/load-once.ts';
import type { BedrockReach } from '../client-wire-reach.ts';

/**
 * Bedrock's wires and hops, imported on first use (a plain dynamic import: on the local host a module like any
 * other; in a Lambda bundle, which is built split, a file beside the entry that a cold start does not load).
 */
export const loadBedrockReach: () => Promise<BedrockReach> = loadOnce(() =>
  import('./bedrock-reach.ts').then((module) => module.bedrockReach),
);
