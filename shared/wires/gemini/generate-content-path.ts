import { badRequest, notFound } from '../../http/gateway-error.ts';
import type { RequestAddress } from '../client-wire-format.ts';

/** The path below which every generate-content method lives; the route table matches on it as a prefix. */
export const generateContentPathPrefix = '/v1beta/models/';

export type GenerateContentMethod = 'generateContent' | 'streamGenerateContent';

export interface GenerateContentTarget {
  /** The gateway model id, e.g. `google/gemini-test`. */
  model: string;
  method: GenerateContentMethod;
}

/**
 * Reads `/v1beta/models/<model>:<method>`. The gateway's model ids are `provider/model`, so the model segment
 * holds a `/`, sent raw or as `%2F` depending on the client; the path is decoded first and the method is what
 * follows the LAST `:`, because model names may themselves contain colons (`llama3:8b`).
 */
export function parseGenerateContentPath(address: RequestAddress): GenerateContentTarget {
  const { innerPath } = address;
  if (!innerPath.startsWith(generateContentPathPrefix)) {
    throw notFound('unknown_route', `No generate-content route at ${innerPath}.`);
  }
  let resource: string;
  try {
    resource = decodeURIComponent(innerPath.slice(generateContentPathPrefix.length));
  } catch {
    throw badRequest('invalid_model_path', 'The model segment of the path is not valid percent-encoding.');
  }
  const colon = resource.lastIndexOf(':');
  const model = colon === -1 ? resource : resource.slice(0, colon);
  const method = colon === -1 ? '' : resource.slice(colon + 1);
  if (method !== 'generateContent' && method !== 'streamGenerateContent') {
    throw notFound(
      'unknown_route',
      `"${method || innerPath}" is not served; use /v1beta/models/<provider/model>:generateContent or :streamGenerateContent.`,
    );
  }
  if (model.length === 0) throw badRequest('invalid_model_path', 'The path names no model before the colon.');
  return { model, method };
}
