import * as z from '../../validation/zod.ts';
import {
  apiBaseUrl,
  type BaseUrlConvention,
  joinUrl,
  modelListRequest,
  type UpstreamModelList,
  type UpstreamTarget,
} from '../upstream-wire-format.ts';

/**
 * What every call to a generate-content upstream shares: where its paths go, how it authenticates, its model list.
 */

/**
 * As the Google SDK's `baseUrl`: `https://generativelanguage.googleapis.com`, the SDK appending its API version,
 * `v1beta` by default. A base URL ending in a version (`…/v1beta`, or `…/v1` for the stable API) is taken as is.
 */
export const generateContentBaseUrl: BaseUrlConvention = {
  appendedVersion: 'v1beta',
  versions: ['v1beta', 'v1', 'v1alpha'],
};

/** `path` under the connection's API address, `{base}/v1beta`. */
export function generateContentApiUrl(baseUrl: string, path: string): string {
  return joinUrl(apiBaseUrl(generateContentBaseUrl, baseUrl), path);
}

/** Only the provider credential goes upstream, in a header: never `?key=`, which ends up in access logs. */
export function generateContentAuthentication(target: UpstreamTarget): Record<string, string> {
  return { 'x-goog-api-key': target.credential };
}

const modelListAnswer = z.looseObject({
  models: z._default(z.array(z.looseObject({ name: z.string() })), []),
  nextPageToken: z.nullish(z.string()),
});

/**
 * `GET {base}/v1beta/models?pageSize=1000` (https://ai.google.dev/api/models#method:-models.list); a model is named
 * `models/<id>`, read here as its id. A thousand is the largest page the vendor gives.
 */
export const generateContentUpstreamModelList: UpstreamModelList = {
  request: (target) =>
    modelListRequest(
      `${generateContentApiUrl(target.baseUrl, '/models')}?pageSize=1000`,
      generateContentAuthentication(target),
    ),
  read(answer) {
    const parsed = modelListAnswer.safeParse(answer);
    if (!parsed.success) return undefined;
    return {
      ids: parsed.data.models.map((model) => model.name.replace(/^models\//, '')),
      more: typeof parsed.data.nextPageToken === 'string' && parsed.data.nextPageToken !== '',
    };
  },
};
