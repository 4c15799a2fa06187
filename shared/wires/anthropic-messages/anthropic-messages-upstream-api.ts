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
 * What every call to a messages-format upstream shares: where its paths go, how it authenticates, its model list.
 */

/** The API version every request pins; the vendor refuses requests without one. */
export const anthropicVersion = '2023-06-01';

/** As `ANTHROPIC_BASE_URL`: `https://api.anthropic.com`, the SDK appending `/v1`; `…/v1` is taken as is. */
export const messagesBaseUrl: BaseUrlConvention = { appendedVersion: 'v1', versions: ['v1'] };

/** `path` under the connection's API address, `{base}/v1`. */
export function messagesApiUrl(baseUrl: string, path: string): string {
  return joinUrl(apiBaseUrl(messagesBaseUrl, baseUrl), path);
}

/** The provider credential and the pinned version; of the client's headers only `forwardedClientHeaders` go too. */
export function messagesAuthentication(target: UpstreamTarget): Record<string, string> {
  return { 'x-api-key': target.credential, 'anthropic-version': anthropicVersion };
}

const modelListAnswer = z.looseObject({
  data: z.array(z.looseObject({ id: z.string() })),
  has_more: z.nullish(z.boolean()),
});

/**
 * `GET {base}/v1/models?limit=1000`, paged, newest first (https://docs.anthropic.com/en/api/models-list); a
 * thousand is the largest page the vendor gives.
 */
export const messagesUpstreamModelList: UpstreamModelList = {
  request: (target) =>
    modelListRequest(`${messagesApiUrl(target.baseUrl, '/models')}?limit=1000`, messagesAuthentication(target)),
  read(answer) {
    const parsed = modelListAnswer.safeParse(answer);
    if (!parsed.success) return undefined;
    return { ids: parsed.data.data.map((model) => model.id), more: parsed.data.has_more === true };
  },
};
