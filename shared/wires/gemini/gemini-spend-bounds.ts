import { badRequest } from '../../http/gateway-error.ts';
import { isRecord } from '../parse-json.ts';
import { cappedAt, serverToolRefused } from '../spend-bounds.ts';
import type { GenerateContentRequest, GenerationConfig } from './gemini-request.ts';

/**
 * What the reservation bounds on the generate-content wire (shared/wires/spend-bounds.ts).
 * https://ai.google.dev/api/generate-content
 */

/** Each setting by both of its names (protobuf JSON): the reservation reads whichever the client used. */
const settingNames = {
  maxOutputTokens: ['maxOutputTokens', 'max_output_tokens'],
  candidateCount: ['candidateCount', 'candidate_count'],
} as const;

type Setting = keyof typeof settingNames;

/** Where the request keeps its generation settings; a request may not keep them under both names. */
function generationConfigField(request: GenerateContentRequest): 'generationConfig' | 'generation_config' {
  if (request.generationConfig != null && request.generation_config != null) {
    throw badRequest('invalid_request', 'Send generationConfig or generation_config, not both.');
  }
  return request.generation_config != null ? 'generation_config' : 'generationConfig';
}

function settingOf(config: GenerationConfig | null | undefined, setting: Setting): number | undefined {
  const [camel, snake] = settingNames[setting];
  const values = [config?.[camel], config?.[snake]].filter((value) => value !== undefined && value !== null);
  if (values.length > 1) throw badRequest('invalid_request', `Send ${camel} or ${snake}, not both.`);
  return values[0] ?? undefined;
}

/** `generationConfig.maxOutputTokens`: the output one candidate may produce, thoughts included. */
export function geminiRequestedOutput(request: GenerateContentRequest): number | undefined {
  return settingOf(request[generationConfigField(request)], 'maxOutputTokens');
}

/** `candidateCount` answers, each as long as the output cap allows. */
export function geminiAnswerCount(request: GenerateContentRequest): number {
  return settingOf(request[generationConfigField(request)], 'candidateCount') ?? 1;
}

/**
 * A Tool object declares one kind of tool per field. Only function declarations are run by the client; every other
 * field is a tool the vendor runs — googleSearch, googleSearchRetrieval, urlContext, codeExecution, fileSearch,
 * computerUse, googleMaps, enterpriseWebSearch, retrieval, and any added later — in either spelling.
 */
const clientSideToolFields = new Set(['functionDeclarations', 'function_declarations']);

export function assertGeminiCostBounded(request: GenerateContentRequest): void {
  for (const [position, tool] of (request.tools ?? []).entries()) {
    const fields = isRecord(tool) ? Object.keys(tool) : ['(not an object)'];
    const serverSide = fields.find((field) => !clientSideToolFields.has(field));
    if (serverSide !== undefined) throw serverToolRefused(`tools.${position}.${serverSide}`, 'a built-in tool');
  }
}

/** The body with the cap on each candidate, in the spelling the client used (camelCase when it used none). */
export function withGeminiOutputCap(body: Record<string, unknown>, cap: number): Record<string, unknown> {
  const request = body as GenerateContentRequest;
  const field = generationConfigField(request);
  const config: Record<string, unknown> = { ...(request[field] ?? {}) };
  const [camel, snake] = settingNames.maxOutputTokens;
  const name = config[snake] !== undefined && config[snake] !== null ? snake : camel;
  config[name] = cappedAt(config[name], cap);
  return { ...body, [field]: config };
}
