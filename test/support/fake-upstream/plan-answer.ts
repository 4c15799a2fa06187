import { type AnswerBehaviour, defaultFakeUsage, type FakeToolCall } from './behaviour.ts';
import { type JsonRecord, stringAt } from './json-fields.ts';
import { mostAllowedUsage } from './most-allowed-usage.ts';
import type { RecordedRequest } from './recorded-request.ts';
import type { FakeUpstreamRoute } from './route.ts';
import type { AnswerPlan } from './wire-reply.ts';

/** Turns a behaviour and a request into what to answer; the wires only render the plan. */
export function planAnswer(
  route: FakeUpstreamRoute,
  record: RecordedRequest,
  request: JsonRecord,
  behaviour: AnswerBehaviour,
): AnswerPlan {
  const turn = route.wire.lastTurn(request);
  const text = behaviour.text ?? behaviour.textChunks?.join('') ?? `echo: ${turn.text}`;
  return {
    request,
    model: stringAt(request, 'model') ?? route.model ?? 'fake-model',
    requestIndex: record.index,
    streamMode: route.streamModeFromPath ?? (request['stream'] === true ? 'sse' : 'none'),
    text,
    textChunks: behaviour.textChunks ?? splitIntoWords(text),
    toolCalls: toolCallsOf(route, request, behaviour, turn),
    usage: usageOf(route, request, behaviour),
    reasoning: behaviour.reasoning ?? route.wire.defaultReasoning?.(request, turn),
    redactedThinking: behaviour.redactedThinking === true,
  };
}

function usageOf(route: FakeUpstreamRoute, request: JsonRecord, behaviour: AnswerBehaviour): AnswerPlan['usage'] {
  switch (behaviour.usage) {
    case 'omit':
      return undefined;
    case 'most-allowed':
      return mostAllowedUsage(route.wire, request);
    default:
      return behaviour.usage ?? defaultFakeUsage;
  }
}

function toolCallsOf(
  route: FakeUpstreamRoute,
  request: JsonRecord,
  behaviour: AnswerBehaviour,
  turn: { text: string; isToolResult: boolean },
): AnswerPlan['toolCalls'] {
  const defaultArguments = JSON.stringify({ input: turn.text });
  const planned = (requested: FakeToolCall) => ({
    name: requested.name ?? route.wire.offeredToolName(request) ?? 'fake_tool',
    arguments: requested.arguments ?? defaultArguments,
  });
  if (behaviour.toolCalls) return behaviour.toolCalls.map(planned);
  const requested = behaviour.toolCall;
  if (requested === false) return [];
  if (requested) return [planned(requested)];
  // As a model would: call a tool when one is on offer, answer in text once a tool's result is back.
  const offered = turn.isToolResult ? undefined : route.wire.offeredToolName(request);
  return offered === undefined ? [] : [{ name: offered, arguments: defaultArguments }];
}

/** One delta per word, each with its leading space, as providers tend to stream. */
function splitIntoWords(text: string): string[] {
  const words = text.split(/(?=\s)/);
  return words.length > 0 ? words : [''];
}
