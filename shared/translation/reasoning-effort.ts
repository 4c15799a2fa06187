import { badRequest } from '../http/gateway-error.ts';
import { isRecord } from '../wires/parse-json.ts';

/** What a catalog entry says about reasoning effort; a `CatalogModel` fits as is. */
export interface ReasoningPolicy {
  reasoningEffort: { supported: readonly string[]; default: string } | null;
}

/**
 * The effort a request asks for, from chat `reasoning_effort` or the Responses form `reasoning.effort`
 * (which router-style chat clients send too), checked against the model's list; the model's default when
 * the client sends none. `undefined` for a model without reasoning effort.
 */
export function resolveReasoningEffort(body: Record<string, unknown>, policy: ReasoningPolicy): string | undefined {
  const effort = policy.reasoningEffort;
  if (!effort) return undefined;
  const chatForm = readEffort(body.reasoning_effort, 'reasoning_effort', effort.supported);
  const responsesForm = readEffort(
    isRecord(body.reasoning) ? body.reasoning.effort : undefined,
    'reasoning.effort',
    effort.supported,
  );
  if (chatForm !== undefined && responsesForm !== undefined && chatForm !== responsesForm) {
    throw badRequest(
      'conflicting_reasoning_effort',
      `reasoning_effort "${chatForm}" and reasoning.effort "${responsesForm}" disagree; send one of them.`,
    );
  }
  return chatForm ?? responsesForm ?? effort.default;
}

function readEffort(value: unknown, field: string, supported: readonly string[]): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && supported.includes(value)) return value;
  throw badRequest(
    'invalid_reasoning_effort',
    `${field} must be one of ${supported.map((name) => `"${name}"`).join(', ')} for this model; got ${JSON.stringify(value)}.`,
  );
}

/**
 * The chat body for the K3 route (chat-completions-style upstream) with the effort in the field that route
 * reads. Assumption, to confirm against the live upstream: it takes the chat `reasoning_effort` field with
 * the catalog's values as they are (`low`, `high`, `max`), so the value is passed unchanged, and the
 * default `high` is written out so the upstream never falls back to a default of its own. A Responses-form
 * `reasoning.effort` is moved into `reasoning_effort`; other `reasoning` fields stay for the upstream.
 * Models without reasoning effort get the body back unchanged.
 */
export function applyReasoningEffort(
  chatBody: Record<string, unknown>,
  catalogEntry: ReasoningPolicy,
): Record<string, unknown> {
  const effort = resolveReasoningEffort(chatBody, catalogEntry);
  if (effort === undefined) return chatBody;
  const { reasoning, ...rest } = chatBody;
  const upstreamBody: Record<string, unknown> = { ...rest, reasoning_effort: effort };
  if (isRecord(reasoning)) {
    const { effort: _movedEffort, ...otherReasoning } = reasoning;
    if (Object.keys(otherReasoning).length > 0) upstreamBody.reasoning = otherReasoning;
  } else if (reasoning !== undefined) {
    upstreamBody.reasoning = reasoning;
  }
  return upstreamBody;
}
