import type { EventTransformer } from '../streams/event-transformer.ts';

/** What every hop of one request's translation knows of it. */
export interface TranslationContext {
  requestId: string;
  /** The public model id the client named, echoed in translated answers. */
  publicModel: string;
  upstreamModel: string;
  /** The output tokens admission reserves: sent upstream where the client stated no maximum. */
  outputAllowance: number;
  createdAt: Date;
  /**
   * Whether the hop's near side is the client itself, rather than another hop: a stream is written for a client's
   * accumulator (chat `thinking_blocks` once, at the end) but for a hop as it comes (each block when it closes).
   */
  nearestTheClient: boolean;
}

/**
 * One step between two wires: from the wire nearer the client (`Near`) to the wire nearer the upstream (`Far`).
 * A hop translates one request at a time; what it returns carries that request's state (the settings an answer
 * repeats, the ids it was given) to the converters that bring the answer back, so nothing is read twice.
 */
export interface TranslationHop<NearRequest, FarRequest, FarAnswer, NearAnswer, FarEvent, NearEvent> {
  /** Refusals (400) are thrown here, before anything is reserved or sent. */
  translate(
    request: NearRequest,
    context: TranslationContext,
  ): HopExchange<FarRequest, FarAnswer, NearAnswer, FarEvent, NearEvent>;
}

export interface HopExchange<FarRequest, FarAnswer, NearAnswer, FarEvent, NearEvent> {
  /** The request in the far wire, typed. */
  readonly request: FarRequest;
  /** A whole answer back into the near wire. */
  convertAnswer(answer: FarAnswer): NearAnswer;
  /** An upstream error body, re-rendered in the near wire's envelope (the status is kept by the caller). */
  convertError(upstreamText: string): string;
  /** The stream back into the near wire, event by event (`new TransformStream(...)` of it is the stream form). */
  streamTransformer(): EventTransformer<FarEvent, NearEvent>;
}
