import type { ListedModel, ModelPage } from '../../catalog/callable-models.ts';
import { badRequest } from '../../http/gateway-error.ts';

/** The vendor's default page, and the most it returns whatever `pageSize` asks. */
const defaultPageSize = 50;
const largestPageSize = 1000;

export interface GeminiModelListQuery {
  pageSize: number;
  /** The id the previous page ended at, from its `nextPageToken`. */
  afterId: string | undefined;
}

/**
 * `pageSize` and `pageToken`. The token is opaque to clients; here it is the last id of the page before, in
 * base64url, so that it pages on by comparison even if that model has left the list since.
 * https://ai.google.dev/api/models#method:-models.list
 */
export function readGeminiModelListQuery(query: URLSearchParams): GeminiModelListQuery {
  const sizeText = query.get('pageSize');
  const size = sizeText === null ? 0 : Number(sizeText);
  if (!Number.isInteger(size) || size < 0) throw badRequest('invalid_query', 'pageSize must be a whole number.');
  const token = query.get('pageToken') || undefined;
  return {
    pageSize: size === 0 ? defaultPageSize : Math.min(size, largestPageSize),
    afterId: token === undefined ? undefined : idOfPageToken(token),
  };
}

function idOfPageToken(token: string): string {
  const id = /^[A-Za-z0-9_-]+$/.test(token) ? Buffer.from(token, 'base64url').toString('utf8') : '';
  if (id.length === 0 || Buffer.from(id, 'utf8').toString('base64url') !== token) {
    throw badRequest('invalid_query', 'pageToken is not a token this gateway gave; start again without it.');
  }
  return id;
}

/**
 * `generateContent` (streaming included, as the vendor lists it) where the generate-content format reaches the
 * model; `countTokens` always, because the count answers for every model a caller can call.
 */
function supportedGenerationMethods(model: ListedModel): string[] {
  return model.wires.includes('gemini') ? ['generateContent', 'countTokens'] : ['countTokens'];
}

/**
 * A model as the generate-content models API shows it; `name` is `models/<provider/model>`, which the SDK sends
 * back as is. Token limits are given where the catalog states them.
 * https://ai.google.dev/api/models#Model
 */
export function geminiModelEntry(model: ListedModel) {
  return {
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: '1',
    displayName: model.displayName,
    ...(model.contextWindow === null ? {} : { inputTokenLimit: model.contextWindow }),
    ...(model.maxOutput === null ? {} : { outputTokenLimit: model.maxOutput }),
    supportedGenerationMethods: supportedGenerationMethods(model),
  };
}

export function geminiModelList(page: ModelPage) {
  const last = page.models.at(-1);
  return {
    models: page.models.map(geminiModelEntry),
    ...(page.hasMore && last ? { nextPageToken: Buffer.from(last.id, 'utf8').toString('base64url') } : {}),
  };
}
