import {
  type AdmissionHandle,
  type AdmissionRequest,
  admitRequest,
  type RequestOutcome,
} from '../accounting/admission-handle.ts';
import { estimateInput, reservedInputTokens } from '../accounting/estimate-input-tokens.ts';
import { cappedRequestedOutput, outputAllowance } from '../accounting/output-allowance.ts';
import { assertSelfContainedText } from '../accounting/self-contained-text.ts';
import { assertFitsContextWindow } from '../catalog/context-window.ts';
import { assertMediaTaken } from '../catalog/input-modalities.ts';
import { modelLimitsOn } from '../catalog/model-limits.ts';
import { type RequestDeadline, startRequestDeadline } from '../clock/monotonic-deadline.ts';
import { type GatewayServices, trackBackground } from '../config/gateway-services.ts';
import { GatewayError, toGatewayError } from '../http/gateway-error.ts';
import type { GatewayRequest, GatewayResponse } from '../http/gateway-request.ts';
import { type JsonResponse, lastResortFailure, renderFailure } from '../http/render-error.ts';
import type { RouteMatch } from '../http/route-table.ts';
import { type UpstreamNetwork, upstreamNetworkFor } from '../net/upstream-address.ts';
import { createAnswerSummaryReader, summaryOfAnswer } from '../observability/answer-summary.ts';
import { logger } from '../observability/logger.ts';
import type { GenAiOperation, RequestTrace, RoutedRequest } from '../observability/request-trace.ts';
import { newId } from '../store/ids.ts';
import { AdmissionRefusedError } from '../store/store-errors.ts';
import { type ClientWireReach, reachTo } from '../translation/client-wire-reach.ts';
import { translateRequest, type WireTranslation } from '../translation/wire-translation.ts';
import type { ClientWireFormat, StreamFraming, WireRequest } from '../wires/client-wire-format.ts';
import { upstreamWireOfModel } from '../wires/model-wire.ts';
import { isRecord, parseJson } from '../wires/parse-json.ts';
import type { UpstreamHttpRequest, UpstreamWireFormat } from '../wires/upstream-wire-format.ts';
import { clientWiresServedBy, type ErrorEnvelope, formatOfWire } from '../wires/wire-names.ts';
import { dispatchUpstream, readUpstreamText } from './dispatch-upstream.ts';
import { forwardedHeaders, requestToSend } from './forwarded-headers.ts';
import { relayEventStream } from './relay-event-stream.ts';
import { readAndRoute } from './route-request.ts';
import { sseBodyOf } from './sse-body.ts';
import { upstreamTargetOf } from './upstream-target.ts';

/**
 * The request pipeline of every inference wire: read, authenticate, validate, route and authorize, reserve and
 * admit, dispatch, relay, settle. Never throws: refusals are rendered in the wire's error envelope.
 *
 * From admission on the request is held by its `AdmissionHandle`, and every path ends in it: an answer hands it the
 * answer's outcome, a failure anywhere after admission is rendered here and hands it the failure, and the `finally`
 * closes it, which settles whatever no path settled. A deadline timer of the request's own ends it on time.
 */
export async function handleInference<Request extends WireRequest, ClientEvent, UpstreamEvent>(
  services: GatewayServices,
  request: GatewayRequest,
  route: RouteMatch,
  clientWire: ClientWireFormat<Request, ClientEvent, UpstreamEvent>,
  reach: ClientWireReach,
): Promise<GatewayResponse> {
  const deadline = startRequestDeadline(services.config.maxRequestMs);
  const framing = clientWire.streamFraming?.({ innerPath: route.innerPath, query: request.query });
  // Undefined unless OpenTelemetry is configured: then every `trace?.` below is skipped.
  const trace = services.telemetry?.startRequest({ headers: request.headers, clientWire: clientWire.wire });
  let admitted: AdmissionHandle | undefined;
  try {
    let prepared = await prepareRequest(services, request, route, clientWire, reach, framing, { admittedAfter: true });
    if (trace) trace.routed(routedRequest(clientWire.wire, prepared));
    try {
      admitted = await admitRequest(services, { ...prepared.admission, deadline, trace });
    } catch (error) {
      if (!(error instanceof AdmissionRefusedError && error.refusal.reason === 'policy_changed')) throw error;
      // An administrator changed the member's or key's policy since the cached principal was read (perhaps on
      // another instance): read it again, consistently, and authorize and admit once more under the new policy.
      services.caches.principals.clear();
      prepared = await prepareRequest(services, request, route, clientWire, reach, framing, { admittedAfter: false });
      if (trace) trace.routed(routedRequest(clientWire.wire, prepared));
      admitted = await admitRequest(services, { ...prepared.admission, deadline, trace });
    }
    trace?.admitted(prepared.admission.reserve);
    const answer = await answerAdmitted(services, request, prepared, deadline, framing, trace);
    return {
      ...answer.response,
      headers: { ...answer.response.headers, 'x-request-id': prepared.requestId },
      afterResponse: admitted.settle(answer.outcome),
    };
  } catch (error) {
    const failure = failureAnswer(error, clientWire.envelope, framing, {
      operation: admitted ? 'upstream call' : 'request',
      requestId: admitted?.requestId ?? request.requestId,
    });
    if (admitted === undefined) {
      if (trace) trace.refused({ status: failure.statusCode, code: toGatewayError(error).code });
      return failure;
    }
    return {
      ...failure,
      headers: { ...failure.headers, 'x-request-id': admitted.requestId },
      afterResponse: admitted.settle({
        status: failure.statusCode,
        completed: false,
        usage: undefined,
        ...(trace ? { errorCode: toGatewayError(error).code } : {}),
      }),
    };
  } finally {
    if (admitted) admitted.close();
    else deadline.stop();
  }
}

/**
 * A failure's answer, in the framing the client asked for (a JSON array carries even its errors as one). Never
 * throws, so the pipeline always answers and always settles: should rendering or framing the failure fail, the
 * answer is the last-resort 500 in the wire's envelope.
 */
function failureAnswer(
  error: unknown,
  envelope: ErrorEnvelope,
  framing: StreamFraming | undefined,
  context: { operation: string; requestId: string },
): JsonResponse {
  try {
    const answer = renderFailure(error, envelope, context);
    return framing && answer.body.length > 0 ? { ...answer, body: framing.errorBody(answer.body) } : answer;
  } catch (renderingFault) {
    return lastResortFailure(envelope, { ...context, renderingFault });
  }
}

/** A request read, routed, authorized, validated and translated: ready to be admitted and sent. */
interface PreparedRequest {
  requestId: string;
  /** The most output the answer may have: the cap sent upstream (`gen_ai.request.max_tokens`). */
  outputAllowance: number;
  /** What admission reserves and records. */
  admission: Omit<AdmissionRequest, 'deadline'>;
  stream: boolean;
  upstream: UpstreamHttpRequest;
  upstreamWire: UpstreamWireFormat<unknown, unknown>;
  translation: WireTranslation;
  network: UpstreamNetwork;
}

/**
 * Everything before admission. Every refusal happens here, before anything is reserved: the policy, the rules of
 * a finite allowance (self-contained text, nothing whose cost the reservation cannot bound), the model's limits
 * and the translation.
 */
async function prepareRequest<Request extends WireRequest, ClientEvent, UpstreamEvent>(
  services: GatewayServices,
  request: GatewayRequest,
  route: RouteMatch,
  clientWire: ClientWireFormat<Request, ClientEvent, UpstreamEvent>,
  reach: ClientWireReach,
  framing: StreamFraming | undefined,
  /** Whether the principal may come from the cache (admission's condition re-checks it), see authenticate. */
  options: { admittedAfter: boolean },
): Promise<PreparedRequest> {
  const { config } = services;
  const { principal, clientRequest, address, routed } = await readAndRoute(
    services,
    request,
    route,
    clientWire,
    options,
  );
  const { model, connection } = routed;
  // On Bedrock the wire is the model's: Anthropic's through InvokeModel, the others through Converse.
  const upstreamWireName = upstreamWireOfModel(connection.wire, model.upstreamModel);
  const native = clientWiresServedBy(upstreamWireName).includes(clientWire.wire);
  assertMediaTaken(model, connection, clientWire.mediaParts(clientRequest));
  if (principal.member.policy.dailyTokens !== undefined) {
    // What costs is what goes upstream. A pass-through sends the client's tools as they are; a translation sends
    // only tools the client runs (each hop refuses or leaves out every other: Codex CLI's web search, say).
    if (native) clientWire.assertCostBounded(clientRequest);
    assertSelfContainedText(clientRequest);
  }
  const stream = clientWire.isStream(clientRequest, address);
  const limits = modelLimitsOn(model, connection);
  const requestedOutput = cappedRequestedOutput(clientWire.requestedOutput(clientRequest), limits);
  const inputEstimate = estimateInput(clientRequest);
  // The most output one answer may produce: it goes upstream as the wire's own cap.
  const allowance = outputAllowance({
    requested: requestedOutput,
    modelMaxOutput: limits.maxOutput,
    policyMaxOutput: routed.policy.maxOutput,
    defaultCap: config.defaultOutputCap,
  });
  assertFitsContextWindow({ publicId: model.publicId, limits }, inputEstimate, requestedOutput);
  const requestId = newId('req');
  // The wire, the hops and Bedrock's code are imported by the first request that needs them (client-wire-reach.ts).
  const { upstreamWire, hops } = await reachTo(reach, clientWire.wire, upstreamWireName);
  const translation = translateRequest(
    clientRequest,
    { clientWire, upstreamWire, catalog: model.catalog, framing, hops },
    {
      requestId,
      publicModel: model.publicId,
      upstreamModel: model.upstreamModel,
      outputAllowance: allowance,
      createdAt: services.now(),
    },
  );
  const forwarded = forwardedHeaders(upstreamWire, native, request.headers);
  const upstream = await requestToSend(
    upstreamWire,
    await upstreamTargetOf(services, connection),
    {
      body: translation.upstreamRequest,
      upstreamModel: model.upstreamModel,
      stream,
      operation: 'generate',
      outputCap: allowance,
    },
    forwarded,
  );
  return {
    requestId,
    outputAllowance: allowance,
    admission: {
      principal,
      requestId,
      // Every answer the request asks for (`n`, `candidateCount`) may be as long as the allowance.
      reserve:
        reservedInputTokens(inputEstimate, limits.contextWindow) + allowance * clientWire.answerCount(clientRequest),
      holderDailyRequests: routed.holderDailyRequests,
      describes: {
        provider: model.provider,
        model: model.publicId,
        connectionId: connection.id,
        upstream: routed.upstream,
        wire: clientWire.wire,
        stream,
      },
    },
    stream,
    upstream,
    upstreamWire,
    translation,
    network: upstreamNetworkFor(config.privateUpstreams, connection),
  };
}

/** The answer of an admitted request, and how it ended (a stream: once its relay has ended). */
interface AdmittedAnswer {
  response: Omit<GatewayResponse, 'afterResponse'>;
  outcome: RequestOutcome | Promise<RequestOutcome>;
}

/** Dispatch and relay. Throws on failure; the caller renders it and settles the request with it. */
async function answerAdmitted(
  services: GatewayServices,
  request: GatewayRequest,
  prepared: PreparedRequest,
  deadline: RequestDeadline,
  framing: StreamFraming | undefined,
  trace: RequestTrace | undefined,
): Promise<AdmittedAnswer> {
  const { config } = services;
  const { upstreamWire, translation, stream, requestId } = prepared;
  // Every wait below also ends at the request's deadline, whose own timer aborts the call whatever it is doing.
  const timeLeft = () => Math.max(1, Math.min(config.upstreamTimeoutMs, deadline.remainingMs()));
  const traceHeaders = trace?.upstreamStarting({ url: prepared.upstream.url });
  const upstreamRequest =
    traceHeaders && Object.keys(traceHeaders).length > 0
      ? { ...prepared.upstream, headers: { ...prepared.upstream.headers, ...traceHeaders } }
      : prepared.upstream;
  const call = await dispatchUpstream(upstreamRequest, {
    clientSignal: request.clientSignal,
    timeoutMs: timeLeft(),
    deadline: deadline.signal,
    network: prepared.network,
  });

  const upstreamStatus = call.response.status;
  trace?.upstreamAnswered(upstreamStatus);
  if (upstreamStatus === 401 || upstreamStatus === 403) {
    // The provider refused the connection's stored credential: revoked, expired or mistyped. Raised beside the
    // answer, never before it.
    const { connectionId, provider } = prepared.admission.describes;
    trackBackground(services, services.alerts.credentialRefused({ connectionId, provider, status: upstreamStatus }));
  }
  const contentType = call.response.headers.get('content-type') ?? 'application/json';
  const events = stream && upstreamStatus < 400 ? await sseBodyOf(upstreamWire, call.response, contentType) : undefined;
  if (events) {
    const summary = trace && createAnswerSummaryReader(formatOfWire(upstreamWire.wire));
    let chunks = 0;
    const relay = relayEventStream({
      observeEvent:
        trace &&
        ((data: string) => {
          if (chunks++ === 0) trace.firstChunk();
          summary?.push(data);
        }),
      upstream: events,
      upstreamWire,
      toClient: translation.streamToClient(),
      failureEvent: (reason) =>
        translation.streamFailure(
          reason === 'timeout'
            ? new GatewayError(504, 'upstream_timeout', 'The upstream stopped sending before the answer was complete.')
            : new GatewayError(502, 'upstream_interrupted', 'The upstream stream was interrupted.'),
        ),
      idleTimeoutMs: config.upstreamTimeoutMs,
      deadline: deadline.signal,
      abortUpstream: call.abort,
    });
    return {
      response: {
        statusCode: upstreamStatus,
        headers: {
          'content-type': framing?.contentType ?? 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
          'x-accel-buffering': 'no',
        },
        body: relay.body,
      },
      outcome: relay.ended.then(({ completed, usage, fault }) => {
        if (fault !== undefined) logger.error('stream relay failed', { requestId, error: fault });
        return { status: upstreamStatus, completed, usage, ...(summary ? { summary: summary.result() } : {}) };
      }),
    };
  }

  // A whole body: a non-streamed answer, or an upstream error before the first byte (its status is preserved).
  const text = await readUpstreamText(call, timeLeft());
  if (upstreamStatus >= 400) {
    return {
      response: {
        statusCode: upstreamStatus,
        headers: { 'content-type': contentType },
        body: translation.errorBody(upstreamWire.errorText?.(upstreamStatus, call.response.headers.get, text) ?? text),
      },
      outcome: { status: upstreamStatus, completed: true, usage: undefined },
    };
  }
  // The answer's JSON is parsed once: its usage is read from it, and a translation converts it.
  const answer = parseJson(text);
  return {
    response: {
      statusCode: upstreamStatus,
      headers: { 'content-type': contentType },
      body: translation.answerBody(text, answer),
    },
    outcome: {
      status: upstreamStatus,
      // A body that is not a JSON object is no answer, even passed through with the upstream's 200 (a translation
      // refuses it with a 502 first): the request did not complete.
      completed: isRecord(answer),
      usage: upstreamWire.usageOfAnswer(answer),
      ...(trace ? { summary: summaryOfAnswer(upstreamWire.wire, answer) } : {}),
    },
  };
}

/** The GenAI operation a client wire performs (OpenTelemetry's `gen_ai.operation.name`). */
function operationOf(clientWire: string): GenAiOperation {
  return clientWire === 'gemini' ? 'generate_content' : 'chat';
}

function routedRequest(clientWire: string, prepared: PreparedRequest): RoutedRequest {
  const { principal, describes } = prepared.admission;
  return {
    operation: operationOf(clientWire),
    provider: describes.provider,
    requestModel: describes.model,
    maxTokens: prepared.outputAllowance,
    stream: prepared.stream,
    requestId: prepared.requestId,
    memberId: principal.memberId,
    keyId: principal.keyId,
  };
}
