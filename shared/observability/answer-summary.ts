/**
 * What telemetry reports of an answer beyond its usage: the model that answered (`gen_ai.response.model`) and why
 * it stopped (`gen_ai.response.finish_reasons`), read from the upstream's answer or its typed stream events. Only
 * read when telemetry is on; the request path never needs it.
 */
export interface AnswerSummary {
  responseModel: string | undefined;
  finishReasons: string[];
}

export interface AnswerSummaryReader {
  /** One event's data, as the upstream sent it. */
  push(data: string): void;
  result(): AnswerSummary;
}

type Json = Record<string, unknown>;
const objectAt = (value: unknown, key: string): Json | undefined => {
  const found = value !== null && typeof value === 'object' ? (value as Json)[key] : undefined;
  return found !== null && typeof found === 'object' ? (found as Json) : undefined;
};
const textAt = (value: unknown, key: string): string | undefined => {
  const found = value !== null && typeof value === 'object' ? (value as Json)[key] : undefined;
  return typeof found === 'string' && found.length > 0 ? found : undefined;
};
const arrayAt = (value: unknown, key: string): unknown[] => {
  const found = value !== null && typeof value === 'object' ? (value as Json)[key] : undefined;
  return Array.isArray(found) ? found : [];
};

/** Reads one answer-shaped object of a wire (a whole answer, or a stream's chunk that has the same shape). */
function readPart(wire: string, part: unknown, summary: AnswerSummary): void {
  const reasons = (items: unknown[], key: string) => {
    for (const item of items) {
      const reason = textAt(item, key);
      if (reason !== undefined) summary.finishReasons.push(reason);
    }
  };
  switch (wire) {
    case 'openai-chat':
      summary.responseModel ??= textAt(part, 'model');
      reasons(arrayAt(part, 'choices'), 'finish_reason');
      return;
    case 'gemini':
      summary.responseModel ??= textAt(part, 'modelVersion');
      reasons(arrayAt(part, 'candidates'), 'finishReason');
      return;
    case 'anthropic-messages': {
      summary.responseModel ??= textAt(part, 'model') ?? textAt(objectAt(part, 'message'), 'model');
      const stop = textAt(part, 'stop_reason') ?? textAt(objectAt(part, 'delta'), 'stop_reason');
      if (stop !== undefined) summary.finishReasons.push(stop);
      return;
    }
    case 'openai-responses': {
      const response = objectAt(part, 'response') ?? part;
      summary.responseModel ??= textAt(response, 'model');
      const status = textAt(response, 'status');
      if (status === 'completed') summary.finishReasons.push('stop');
      else if (status === 'incomplete' || status === 'failed') {
        summary.finishReasons.push(textAt(objectAt(response, 'incomplete_details'), 'reason') ?? status);
      }
      return;
    }
    case 'bedrock-converse': {
      // Converse names no model in its answer; its stop reason is the answer's, or the stream's `messageStop`.
      const stop = textAt(part, 'stopReason') ?? textAt(objectAt(part, 'messageStop'), 'stopReason');
      if (stop !== undefined) summary.finishReasons.push(stop);
      return;
    }
    default:
      return;
  }
}

export function summaryOfAnswer(wire: string, answer: unknown): AnswerSummary {
  const summary: AnswerSummary = { responseModel: undefined, finishReasons: [] };
  readPart(wire, answer, summary);
  return summary;
}

/** Events read whole at each end of a stream: the model is named early, the finish reasons late. */
const eventsReadAtEachEnd = 3;

/**
 * The summary of a stream, from the data of its events: the first few are parsed until one names the model, and
 * the last few (kept as the text they arrived as) are parsed once at the end for the finish reasons, so a long
 * stream costs a handful of parses, not one per event.
 */
export function createAnswerSummaryReader(wire: string): AnswerSummaryReader {
  const summary: AnswerSummary = { responseModel: undefined, finishReasons: [] };
  let parsedAtStart = 0;
  const last: string[] = [];
  const read = (data: string) => {
    try {
      const event = JSON.parse(data) as unknown;
      readPart(wire, objectAt(event, 'chunk') ?? event, summary);
    } catch {
      // Not JSON (a `[DONE]` marker): nothing to read.
    }
  };
  return {
    push(data) {
      if (summary.responseModel === undefined && parsedAtStart < eventsReadAtEachEnd) {
        parsedAtStart++;
        const reasons = summary.finishReasons.length;
        read(data);
        // Finish reasons come from the end of the stream only, so none is counted twice.
        summary.finishReasons.length = reasons;
      }
      last.push(data);
      if (last.length > eventsReadAtEachEnd) last.shift();
    },
    result() {
      for (const data of last.splice(0)) read(data);
      return summary;
    },
  };
}
