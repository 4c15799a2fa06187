import type { FakeUsage } from '../fake-upstream/behaviour.ts';
import { arrayAt, isRecord, type JsonRecord, recordAt, stringAt } from '../fake-upstream/json-fields.ts';
import { countAt } from '../fake-upstream/most-allowed-usage.ts';
import {
  type AnswerPlan,
  type FakeError,
  type FakeWire,
  type LastTurn,
  nthCallSuffix,
  splitIntoPieces,
  sseEvent,
  type WireReply,
} from '../fake-upstream/wire-reply.ts';

/**
 * Bedrock's Converse as the fake Bedrock answers it, from the shapes AWS documents
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html, …_ConverseStream.html): a
 * whole answer's `output.message`, `stopReason` and `usage`; a stream's events in order — `messageStart`,
 * `contentBlockStart` (tool use only), `contentBlockDelta`, `contentBlockStop`, `messageStop`, then `metadata` with
 * the usage. Stream events are rendered as SSE text (`event: <type>`, the payload as data); the fake writes each as
 * one binary event-stream frame.
 */

/** Cache writes the answer reports apart from `inputTokens`, set per behaviour (0 unless a test asks). */
export interface ConverseCacheWrites {
  cacheWriteInputTokens?: number;
}

function blocksOf(message: unknown): unknown[] {
  return arrayAt(message, 'content');
}

/** The text of a message's blocks, a tool result's own text blocks included. */
function textOf(message: unknown): string {
  return blocksOf(message)
    .map((block) => stringAt(block, 'text') ?? textOf(recordAt(block, 'toolResult')))
    .join('');
}

/** Converse's `usage`: input counted apart from cache reads and writes, as Bedrock counts it. */
export function converseUsage(usage: FakeUsage, cacheWrites = 0) {
  const inputTokens = usage.inputTokens - usage.cachedInputTokens - cacheWrites;
  return {
    inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
    ...(usage.cachedInputTokens > 0 ? { cacheReadInputTokens: usage.cachedInputTokens } : {}),
    ...(cacheWrites > 0 ? { cacheWriteInputTokens: cacheWrites } : {}),
  };
}

function toolUseId(plan: AnswerPlan, position: number): string {
  return `tooluse_fake${plan.requestIndex}${nthCallSuffix(position)}`;
}

function stopReasonOf(plan: AnswerPlan): string {
  return plan.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
}

function wholeAnswer(plan: AnswerPlan, cacheWrites: number) {
  const content: unknown[] = [];
  if (plan.reasoning !== undefined) {
    content.push({ reasoningContent: { reasoningText: { text: plan.reasoning, signature: 'fake-signature' } } });
  }
  if (plan.toolCalls.length > 0) {
    for (const [position, call] of plan.toolCalls.entries()) {
      content.push({
        toolUse: { toolUseId: toolUseId(plan, position), name: call.name, input: JSON.parse(call.arguments) },
      });
    }
  } else {
    content.push({ text: plan.text });
  }
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: stopReasonOf(plan),
    ...(plan.usage ? { usage: converseUsage(plan.usage, cacheWrites) } : {}),
    metrics: { latencyMs: 12 },
  };
}

function streamEvents(plan: AnswerPlan, cacheWrites: number): string[] {
  const frames = [sseEvent('messageStart', { role: 'assistant' })];
  let index = 0;
  if (plan.reasoning !== undefined) {
    for (const piece of splitIntoPieces(plan.reasoning, 2)) {
      frames.push(
        sseEvent('contentBlockDelta', { contentBlockIndex: index, delta: { reasoningContent: { text: piece } } }),
      );
    }
    frames.push(
      sseEvent('contentBlockDelta', {
        contentBlockIndex: index,
        delta: { reasoningContent: { signature: 'fake-signature' } },
      }),
      sseEvent('contentBlockStop', { contentBlockIndex: index }),
    );
    index += 1;
  }
  if (plan.toolCalls.length > 0) {
    for (const [position, call] of plan.toolCalls.entries()) {
      frames.push(
        sseEvent('contentBlockStart', {
          contentBlockIndex: index,
          start: { toolUse: { toolUseId: toolUseId(plan, position), name: call.name } },
        }),
      );
      for (const piece of splitIntoPieces(call.arguments, 3)) {
        frames.push(sseEvent('contentBlockDelta', { contentBlockIndex: index, delta: { toolUse: { input: piece } } }));
      }
      frames.push(sseEvent('contentBlockStop', { contentBlockIndex: index }));
      index += 1;
    }
  } else {
    for (const chunk of plan.textChunks) {
      frames.push(sseEvent('contentBlockDelta', { contentBlockIndex: index, delta: { text: chunk } }));
    }
    frames.push(sseEvent('contentBlockStop', { contentBlockIndex: index }));
  }
  frames.push(sseEvent('messageStop', { stopReason: stopReasonOf(plan) }));
  frames.push(
    sseEvent('metadata', {
      ...(plan.usage ? { usage: converseUsage(plan.usage, cacheWrites) } : {}),
      metrics: { latencyMs: 12 },
    }),
  );
  return frames;
}

export function converseWire(cacheWrites = 0): FakeWire {
  return {
    name: 'bedrock-converse',
    lastTurn(request: JsonRecord): LastTurn {
      const messages = arrayAt(request, 'messages');
      const last = messages.at(-1);
      if (blocksOf(last).some((block) => isRecord(block) && 'toolResult' in block)) {
        return { text: textOf(last), isToolResult: true };
      }
      const lastUser = messages.findLast((message) => stringAt(message, 'role') === 'user');
      return { text: textOf(lastUser), isToolResult: false };
    },
    outputLimit(request: JsonRecord) {
      return { perAnswer: countAt(recordAt(request, 'inferenceConfig') ?? {}, 'maxTokens'), answers: 1 };
    },
    offeredToolName(request: JsonRecord): string | undefined {
      const toolConfig = recordAt(request, 'toolConfig');
      const forced = stringAt(recordAt(recordAt(toolConfig, 'toolChoice'), 'tool'), 'name');
      return forced ?? stringAt(recordAt(arrayAt(toolConfig, 'tools')[0], 'toolSpec'), 'name');
    },
    answer(plan: AnswerPlan): WireReply {
      return plan.streamMode === 'none'
        ? { kind: 'json', status: 200, body: wholeAnswer(plan, cacheWrites) }
        : {
            kind: 'stream',
            contentType: 'application/vnd.amazon.eventstream',
            frames: streamEvents(plan, cacheWrites),
          };
    },
    errorBody: (error: FakeError) => ({ message: error.message }),
    streamErrorFrame: (error: FakeError) => sseEvent('internalServerException', { message: error.message }),
  };
}
