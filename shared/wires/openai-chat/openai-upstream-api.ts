import * as z from '../../validation/zod.ts';
import {
  type BaseUrlConvention,
  joinUrl,
  modelListRequest,
  type UpstreamModelList,
  type UpstreamTarget,
} from '../upstream-wire-format.ts';

/**
 * What every OpenAI-format upstream (Chat Completions and Responses) has in common: how its base URL is written,
 * how it authenticates and its model list.
 *
 * The base URL is written as `OPENAI_BASE_URL`: it carries the API version (`https://api.openai.com/v1`,
 * OpenRouter's `https://openrouter.ai/api/v1`, a GLM-type engine's `…/api/paas/v4`), and the paths go right under
 * it. Nothing is appended or taken off, since compatible engines put their version wherever they like.
 */
export const openaiBaseUrl: BaseUrlConvention = { appendedVersion: undefined, versions: [] };

export function openaiAuthorization(target: UpstreamTarget): Record<string, string> {
  return { authorization: `Bearer ${target.credential}` };
}

const modelListAnswer = z.looseObject({ data: z.array(z.looseObject({ id: z.string() })) });

/** `GET {base}/models`: the whole list in one answer (https://platform.openai.com/docs/api-reference/models/list). */
export const openaiUpstreamModelList: UpstreamModelList = {
  request: (target) => modelListRequest(joinUrl(target.baseUrl, '/models'), openaiAuthorization(target)),
  read(answer) {
    const parsed = modelListAnswer.safeParse(answer);
    return parsed.success ? { ids: parsed.data.data.map((model) => model.id), more: false } : undefined;
  },
};
