/**
 * The telemetry port: what the request pipeline tells an observer about one request. Nothing here loads
 * OpenTelemetry: with telemetry off (the default) `services.telemetry` is undefined and every call site is a skipped
 * optional call; with it on, the OpenTelemetry implementation (otel/otel-telemetry.ts) is loaded once at start.
 *
 * What crosses this port is ids, names, counts and codes: never a prompt, an answer, a key or a credential.
 */
export interface TelemetryPort {
  /** A request arrived (its W3C `traceparent`, if any, is continued). */
  startRequest(start: { headers: Readonly<Record<string, string | undefined>>; clientWire: string }): RequestTrace;
  /** Exports what is buffered; on Lambda after each response, so no span of a finished request is lost. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** GenAI operation names (OpenTelemetry semantic conventions, `gen_ai.operation.name`). */
export type GenAiOperation = 'chat' | 'generate_content';

export interface RoutedRequest {
  operation: GenAiOperation;
  /** The connection's provider, as the team named it (`gen_ai.provider.name`). */
  provider: string;
  /** The model as the client asked for it, resolved to its public id. */
  requestModel: string;
  maxTokens: number;
  stream: boolean;
  requestId: string;
  memberId: string;
  keyId: string;
}

export interface SettledRequest {
  status: number;
  state: string;
  charge: number;
  reservation: number;
  accountingSource: string;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedInputTokens: number | null;
  responseModel: string | undefined;
  finishReasons: readonly string[];
  /** The gateway's error code when the request failed (`error.type`). */
  errorCode: string | undefined;
}

export interface RequestTrace {
  /** Routed and authorized: names the spans `<operation> <model>` and carries the request's attributes. */
  routed(request: RoutedRequest): void;
  /** Admitted with this reservation. */
  admitted(reservation: number): void;
  /** The upstream call begins; the headers to send with it (a `traceparent` when propagation is on). */
  upstreamStarting(target: { url: string }): Record<string, string>;
  /** The upstream answered with this status (headers received). */
  upstreamAnswered(status: number): void;
  /** The first event of a streamed answer reached the gateway. */
  firstChunk(): void;
  /** Refused or failed before admission: ends the trace with the gateway's code. */
  refused(failure: { status: number; code: string }): void;
  /** Settled: the outcome, the charge and the usage; ends the trace. */
  settled(settled: SettledRequest): void;
}
