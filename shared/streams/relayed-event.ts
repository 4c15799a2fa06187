/** One upstream event as the relay hands it on: read once into its wire's typed event, with its own bytes. */
export interface RelayedEvent<Event> {
  /** Undefined for an event its wire does not read (comments, event types added later). */
  readonly event: Event | undefined;
  /** The event exactly as the upstream sent it, closing blank line included. */
  readonly bytes: Uint8Array;
  /**
   * Its `data` field as sent (absent for a block that dispatches nothing, such as a comment): what a framing other
   * than server-sent events carries of it, every field kept.
   */
  readonly data?: string | undefined;
}

/** What the relay writes to the client: an upstream event's own bytes, or text the gateway wrote in its wire. */
export type ClientChunk = Uint8Array | string;
