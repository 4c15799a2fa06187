import { badRequest, notFound } from '../../http/gateway-error.ts';
import { googleApiVersions } from '../../http/route-table.ts';
import type { RequestAddress } from '../client-wire-format.ts';

/** The version path a Google method lives below (`/v1beta/`, `/v1/`); the route table matches the method at the end. */
function versionPathOf(path: string): string | undefined {
  return googleApiVersions.map((version) => `/${version}/`).find((versionPath) => path.startsWith(versionPath));
}

/**
 * A path from its Google version on: `path` itself, or without the upstream prefix that leads it
 * (`/lb2/v1/models/…` → `/v1/models/…`). For reading a path no route matched.
 */
export function googleInnerPath(path: string): string {
  if (versionPathOf(path)) return path;
  const afterPrefix = path.indexOf('/', 1);
  return afterPrefix === -1 ? path : path.slice(afterPrefix);
}

/** The collection the vendor names its models in: `models/{model}`. */
const modelsCollection = 'models/';

export const generateContentMethods = ['generateContent', 'streamGenerateContent', 'countTokens'] as const;
export type GenerateContentMethod = (typeof generateContentMethods)[number];

export interface GenerateContentTarget {
  /** The gateway model id, e.g. `google/gemini-test`. */
  model: string;
  method: GenerateContentMethod;
}

function isMethod(value: string): value is GenerateContentMethod {
  return (generateContentMethods as readonly string[]).includes(value);
}

/**
 * Reads `/v1beta/models/<model>:<method>` (or `/v1/…`, the stable API: both alike), and `/v1beta/<provider>/<model>:<method>`, the form `@ai-sdk/google`
 * sends for an id that holds a slash (it adds `models/` only to ids without one), and `/v1beta/models/<name>:…`
 * with a model's name from the list, `models/<provider/model>`. The gateway's model ids are
 * `provider/model`, so the model holds a `/`, sent raw or as `%2F` depending on the client; the path is decoded
 * first and the method is what follows the LAST `:`, because model names may themselves contain colons
 * (`llama3:8b`). An upstream prefix may lead the id in either form (`lb2/google/gemini-2.5-flash`).
 */
export function parseGenerateContentPath(address: RequestAddress): GenerateContentTarget {
  const { innerPath } = address;
  const versionPath = versionPathOf(innerPath);
  if (!versionPath) throw notFound('unknown_route', `No generate-content route at ${innerPath}.`);
  let resource: string;
  try {
    resource = decodeURIComponent(innerPath.slice(versionPath.length));
  } catch {
    throw badRequest('invalid_model_path', 'The model segment of the path is not valid percent-encoding.');
  }
  if (resource.startsWith(modelsCollection)) resource = resource.slice(modelsCollection.length);
  // A model's name as the list gives it, `models/<provider/model>`, put after the collection as the model read takes it.
  if (resource.startsWith(modelsCollection)) resource = resource.slice(modelsCollection.length);
  const colon = resource.lastIndexOf(':');
  const model = colon === -1 ? resource : resource.slice(0, colon);
  const method = colon === -1 ? '' : resource.slice(colon + 1);
  if (!isMethod(method)) {
    throw notFound(
      'unknown_route',
      `"${method || innerPath}" is not served; use ${versionPath}models/<provider/model>:generateContent, :streamGenerateContent or :countTokens.`,
    );
  }
  if (model.length === 0) throw badRequest('invalid_model_path', 'The path names no model before the colon.');
  return { model, method };
}

/** The method a path names, or undefined when it names none the gateway serves (no error: a lookup, not a check). */
export function generateContentMethodOf(address: RequestAddress): GenerateContentMethod | undefined {
  try {
    return parseGenerateContentPath(address).method;
  } catch {
    return undefined;
  }
}

/**
 * How `:streamGenerateContent` frames its answer, from `alt` as the vendor reads it: `sse` for server-sent
 * events; absent or `json` for one JSON array written as it is produced. Anything else is refused.
 */
export function streamResponseFormat(address: RequestAddress): 'sse' | 'json-array' {
  const alt = address.query.get('alt');
  if (alt === 'sse') return 'sse';
  if (alt === null || alt === 'json') return 'json-array';
  throw badRequest(
    'invalid_query',
    `alt=${alt} is not served; use alt=sse, or alt=json (the default) for a JSON array.`,
  );
}
