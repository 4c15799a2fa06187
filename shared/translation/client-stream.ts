import { composeTransformers, type EventTransformer } from '../streams/event-transformer.ts';
import type { ClientChunk, RelayedEvent } from '../streams/relayed-event.ts';
import type { FramedStreamWriter } from '../wires/client-wire-format.ts';

/**
 * A pass-through: every upstream event reaches the client as the bytes it came in, except the ones `drops` names
 * (a usage chunk the client did not ask for), so dropping one event leaves every other byte as it was.
 */
export function passThroughStream<Event>(
  drops: ((event: Event) => boolean) | undefined,
): EventTransformer<RelayedEvent<Event>, ClientChunk> {
  return {
    transform({ event, bytes }, controller) {
      if (event === undefined || drops === undefined || !drops(event)) controller.enqueue(bytes);
    },
  };
}

/**
 * A pass-through in another framing than server-sent events: each upstream event's JSON, every field as it came,
 * written by the framing (events that carry no data, such as comments, have nothing to carry).
 */
export function framedPassThroughStream<Event>(
  drops: ((event: Event) => boolean) | undefined,
  writer: FramedStreamWriter,
): EventTransformer<RelayedEvent<Event>, ClientChunk> {
  return {
    transform({ event, data }, controller) {
      if (data === undefined) return;
      if (event === undefined || drops === undefined || !drops(event)) controller.enqueue(writer.event(data));
    },
    flush(controller) {
      controller.enqueue(writer.end());
    },
  };
}

/**
 * A translation: the upstream's typed events through the chain of hops, and what comes out written by the client
 * wire's encoder, the only place its text is made. Events the upstream's wire does not read are not translated.
 */
export function translatedStream<UpstreamEvent, ClientEvent>(
  translation: EventTransformer<UpstreamEvent, ClientEvent>,
  encode: (event: ClientEvent) => string,
): EventTransformer<RelayedEvent<UpstreamEvent>, ClientChunk> {
  const typedEvents: EventTransformer<RelayedEvent<UpstreamEvent>, UpstreamEvent> = {
    transform({ event }, controller) {
      if (event !== undefined) controller.enqueue(event);
    },
  };
  const encoder: EventTransformer<ClientEvent, ClientChunk> = {
    transform(event, controller) {
      controller.enqueue(encode(event));
    },
  };
  return composeTransformers(composeTransformers(typedEvents, translation), encoder);
}
