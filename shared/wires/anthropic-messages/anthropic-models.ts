import type { ListedModel, ModelPage } from '../../catalog/callable-models.ts';
import { badRequest } from '../../http/gateway-error.ts';

/** An Anthropic client, which both SDKs announce on every request with this header. */
export function isAnthropicClient(headers: Record<string, string | undefined>): boolean {
  return headers['anthropic-version'] !== undefined;
}

/** The vendor's default and largest page. */
const defaultLimit = 20;
const largestLimit = 1000;

export interface AnthropicModelListQuery {
  limit: number;
  afterId: string | undefined;
  beforeId: string | undefined;
  /** Whether the `lifecycle` filter lets active models through; every model the gateway lists is active. */
  active: boolean;
}

/**
 * `limit`, `after_id` / `before_id` (one or the other) and `lifecycle` as the SDK sends them.
 * https://docs.anthropic.com/en/api/models-list
 */
export function readAnthropicModelListQuery(query: URLSearchParams): AnthropicModelListQuery {
  const limitText = query.get('limit');
  const limit = limitText === null ? defaultLimit : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > largestLimit) {
    throw badRequest('invalid_query', `limit must be a whole number from 1 to ${largestLimit}.`);
  }
  const afterId = query.get('after_id') ?? undefined;
  const beforeId = query.get('before_id') ?? undefined;
  if (afterId !== undefined && beforeId !== undefined) {
    throw badRequest('invalid_query', 'Send after_id or before_id, not both.');
  }
  const lifecycles = [...query.getAll('lifecycle'), ...query.getAll('lifecycle[]')].flatMap((value) =>
    value.split(','),
  );
  return { limit, afterId, beforeId, active: lifecycles.length === 0 || lifecycles.includes('active') };
}

/**
 * A model as the Anthropic models API shows it. The gateway knows no release date (`created_at` is the epoch, as
 * the vendor gives for an unknown one) and no capabilities; the limits are the catalog's where it states them.
 * https://docs.anthropic.com/en/api/models
 */
export function anthropicModelEntry(model: ListedModel) {
  return {
    type: 'model' as const,
    id: model.id,
    display_name: model.displayName,
    created_at: '1970-01-01T00:00:00Z',
    max_input_tokens: model.contextWindow,
    max_tokens: model.maxOutput,
    lifecycle: 'active' as const,
    capabilities: null,
    deprecated_at: null,
    retires_at: null,
    line: null,
  };
}

/** A page with the cursors the SDK pages on: `last_id` forwards, `first_id` backwards. */
export function anthropicModelList(page: ModelPage) {
  return {
    data: page.models.map(anthropicModelEntry),
    has_more: page.hasMore,
    first_id: page.models[0]?.id ?? null,
    last_id: page.models.at(-1)?.id ?? null,
  };
}
