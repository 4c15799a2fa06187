/**
 * A synchronous WHATWG transformer — what `new TransformStream(transformer)` is built from — over typed events.
 * Every stream translator is one: `new TransformStream(createMessagesToChatTransformer(...))` is the translator as
 * a `TransformStream<MessagesStreamEvent, ChatStreamEvent>`. The relay runs a chain of them inside its own
 * pull-based stream, event by event, instead of piping through one `TransformStream` per hop: each stage would
 * add a queue and a few promise turns per event (about 1.5 µs in Node 20, more than reading the event), and a
 * second place where backpressure could pool events.
 */
export interface EventTransformer<In, Out> {
  transform(event: In, controller: TransformStreamDefaultController<Out>): void;
  /** The upstream stream ended normally; not called when it failed or the client left. */
  flush?(controller: TransformStreamDefaultController<Out>): void;
  /**
   * The stream ends in the gateway's failure (the upstream broke off or timed out): the events that end it in this
   * transformer's wire, numbered and shaped like the rest of its stream. Without it, the client wire's own error
   * event ends the stream.
   */
  fail?(failure: StreamFailure, controller: TransformStreamDefaultController<Out>): void;
}

/** Why the gateway ended a stream before the upstream finished it. */
export interface StreamFailure {
  code: string;
  message: string;
}

/** `first`, then `second` on what `first` emits: the events never leave their typed form between the two. */
export function composeTransformers<In, Middle, Out>(
  first: EventTransformer<In, Middle>,
  second: EventTransformer<Middle, Out>,
): EventTransformer<In, Out> {
  let outer: TransformStreamDefaultController<Out> | undefined;
  const between: TransformStreamDefaultController<Middle> = {
    get desiredSize() {
      return outer?.desiredSize ?? null;
    },
    enqueue: (event) => second.transform(event as Middle, outer as TransformStreamDefaultController<Out>),
    error: (reason) => outer?.error(reason),
    terminate: () => outer?.terminate(),
  };
  return {
    transform(event, controller) {
      outer = controller;
      first.transform(event, between);
    },
    flush(controller) {
      outer = controller;
      first.flush?.(between);
      second.flush?.(controller);
    },
    // The failure is told to the transformer nearest the client, whose wire the client reads.
    ...(second.fail
      ? {
          fail(failure: StreamFailure, controller: TransformStreamDefaultController<Out>) {
            outer = controller;
            second.fail?.(failure, controller);
          },
        }
      : {}),
  };
}

/** Runs a transformer by hand: what it emits for each event (and for the end) is handed to `emit`. */
export function runTransformer<In, Out>(
  transformer: EventTransformer<In, Out>,
  emit: (event: Out) => void,
): { push(event: In): void; end(): void; fail(failure: StreamFailure): void } {
  const controller: TransformStreamDefaultController<Out> = {
    desiredSize: 1,
    enqueue: (event) => emit(event as Out),
    error(reason) {
      throw reason;
    },
    terminate() {},
  };
  return {
    push: (event) => transformer.transform(event, controller),
    end: () => transformer.flush?.(controller),
    fail: (failure) => transformer.fail?.(failure, controller),
  };
}
