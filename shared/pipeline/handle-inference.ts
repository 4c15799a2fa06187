import { admit } from '../accounting/admit.ts';
import { estimateInputTokens } from '../accounting/estimate-input-tokens.ts';
import { outputAllowance } from '../accounting/output-allowance.ts';
import { assertSelfContainedText } from '../accounting/self-contained-text.ts';
import { settle } from '../accounting/settle.ts';
import { assertFitsContextWindow } from '../catalog/context-window.ts';
import { deadlineIn, startStopwatch } from '../clock/monotonic-deadline.ts';
import { type GatewayServices, trackBackground } from '../config/gateway-services.ts';
import { GatewayError } from '../http/gateway-error.ts';
import type { GatewayRequest, GatewayResponse } from '../http/gateway-request.ts';
import { renderFailure } from '../http/render-error.ts';
import type { RouteMatch } from '../http/route-table.ts';
import { upstreamNetworkFor } from '../net/upstream-address.ts';
import { logger } from '../observability/logger.ts';
import { newId } from '../store/ids.ts';
import type { RunningRecord } from '../store/usage-records.ts';
import { translateRequest } from '../translation/wire-translation.ts';
import type { ClientWireFormat, StreamFraming, WireRequest } from '../wires/client-wire-format.ts';
import { parseJson } from '../wires/parse-json.ts';
import { upstreamWireFor } from '../wires/upstream-wires.ts';
import type { UsageReport } from '../wires/usage-report.ts';
import { dispatchUpstream, readUpstreamText } from './dispatch-upstream.ts';
import { forwardedHeaders, withForwardedHeaders } from './forwarded-headers.ts';
import { relayEventStream } from './relay-event-stream.ts';
import { readAndRoute } from './route-request.ts';

/**
 * The request pipeline of every inference wire: read, authenticate, validate, route and authorize, reserve and
 * admit, dispatch, relay, settle. Never throws: refusals are rendered in the wire's error envelope.
 */
export async function handleInference<Request extends WireRequest, ClientEvent, UpstreamEvent>(
  services: GatewayServices,
  request: GatewayRequest,
  route: RouteMatch,
  clientWire: ClientWireFormat<Request, ClientEvent, UpstreamEvent>,
): Promise<GatewayResponse> {
  const framing = clientWire.streamFraming?.({ innerPath: route.innerPath, query: request.query });
  try {
    return await runPipeline(services, request, route, clientWire, framing);
  } catch (error) {
    return framedError(
      renderFailure(error, clientWire.envelope, { operation: 'request', requestId: request.requestId }),
      framing,
    );
  }
}

/** An error answer in the framing the client asked for (a JSON array carries even its errors as one). */
function framedError<Answer extends { body: string }>(answer: Answer, framing: StreamFraming | undefined): Answer {
  return framing && answer.body.length > 0 ? { ...answer, body: framing.errorBody(answer.body) } : answer;
}

async function runPipeline<Request extends WireRequest, ClientEvent, UpstreamEvent>(
  services: GatewayServices,
  request: GatewayRequest,
  route: RouteMatch,
  clientWire: ClientWireFormat<Request, ClientEvent, UpstreamEvent>,
  framing: StreamFraming | undefined,
): Promise<GatewayResponse> {
  const { config } = services;
  const { principal, clientRequest, address, routed } = await readAndRoute(services, request, route, clientWire, {
    admittedAfter: true,
  });
  if (principal.member.policy.dailyTokens !== undefined) assertSelfContainedText(clientRequest);
  const { model, connection } = routed;
  const stream = clientWire.isStream(clientRequest, address);
  const requestedOutput = clientWire.requestedOutput(clientRequest);
  const inputEstimate = estimateInputTokens(clientRequest);
  const allowance = outputAllowance({
    requested: requestedOutput,
    modelMaxOutput: model.catalog?.maxOutput ?? null,
    policyMaxOutput: routed.policy.maxOutput,
    defaultCap: config.defaultOutputCap,
  });
  assertFitsContextWindow(model.catalog, inputEstimate, requestedOutput);
  const requestId = newId('req');
  const now = services.now();
  const upstreamWire = upstreamWireFor(connection.wire);
  const translation = translateRequest(
    clientRequest,
    { clientWire, upstreamWire, catalog: model.catalog, framing },
    {
      requestId,
      publicModel: model.publicId,
      upstreamModel: model.upstreamModel,
      outputAllowance: allowance,
      createdAt: now,
    },
  );
  const forwarded = forwardedHeaders(upstreamWire, clientWire.wire === connection.wire, request.headers);
  const credential = await services.secrets.read(connection.secretName);

  const admission = await admit(services, {
    principal,
    requestId,
    reserve: inputEstimate + allowance,
    holderDailyRequests: routed.holderDailyRequests,
  });
  const record: RunningRecord = {
    id: requestId,
    memberId: principal.memberId,
    keyId: principal.keyId,
    provider: model.provider,
    model: model.publicId,
    connectionId: connection.id,
    upstream: routed.upstream,
    wire: clientWire.wire,
    stream,
    startedAt: admission.admittedAt.toISOString(),
    day: admission.day,
    reserved: admission.reserved,
    state: 'running',
  };
  // The running record need not precede dispatch: it goes out alongside the upstream call.
  const runningWrite = services.store.records.putRunning(record).catch((error: unknown) => {
    logger.warn('running record not written', { requestId, error });
  });
  const stopwatch = startStopwatch();
  const finish = (status: number, completed: boolean, usage: UsageReport | undefined) =>
    trackBackground(
      services,
      runningWrite
        .then(() =>
          settle(services, {
            record,
            status,
            completed,
            usage,
            endedAt: services.now(),
            durationMs: stopwatch.elapsedMs(),
          }),
        )
        // Before the lease was released the reaper settles it when the lease expires; after, the record stays
        // running (README: what settlement's ordered writes cannot promise).
        .catch((error: unknown) => logger.error('settlement failed', { requestId, error })),
    ) as Promise<void>;
  const responseHeaders = { 'x-request-id': requestId };
  // Every wait below ends by the request's deadline, so no request outlives the lease admission took for it.
  const deadline = deadlineIn(config.maxRequestMs);
  const timeLeft = () => Math.max(1, Math.min(config.upstreamTimeoutMs, deadline.remainingMs()));
  // The upstream could not be reached, timed out, or the client left: the answer and the record agree on it.
  const upstreamFailed = (error: unknown): GatewayResponse => {
    const answer = framedError(
      renderFailure(error, clientWire.envelope, { operation: 'upstream call', requestId }),
      framing,
    );
    return {
      ...answer,
      headers: { ...answer.headers, ...responseHeaders },
      afterResponse: finish(answer.statusCode, false, undefined),
    };
  };

  let call: Awaited<ReturnType<typeof dispatchUpstream>>;
  try {
    call = await dispatchUpstream(
      withForwardedHeaders(
        upstreamWire.buildUpstreamRequest({
          target: { baseUrl: connection.baseUrl, credential },
          body: translation.upstreamRequest,
          upstreamModel: model.upstreamModel,
          stream,
          operation: 'generate',
        }),
        forwarded,
      ),
      {
        clientSignal: request.clientSignal,
        timeoutMs: timeLeft(),
        network: upstreamNetworkFor(config.privateUpstreams, connection),
      },
    );
  } catch (error) {
    return upstreamFailed(error);
  }

  const upstreamStatus = call.response.status;
  const contentType = call.response.headers.get('content-type') ?? 'application/json';
  if (stream && upstreamStatus < 400 && contentType.includes('text/event-stream') && call.response.body) {
    const relay = relayEventStream({
      upstream: call.response.body,
      upstreamWire,
      toClient: translation.streamToClient(),
      failureEvent: (reason) =>
        translation.streamFailure(
          reason === 'timeout'
            ? new GatewayError(504, 'upstream_timeout', 'The upstream stopped sending before the answer was complete.')
            : new GatewayError(502, 'upstream_interrupted', 'The upstream stream was interrupted.'),
        ),
      idleTimeoutMs: config.upstreamTimeoutMs,
      deadline,
      abortUpstream: call.abort,
    });
    const afterResponse = relay.ended.then(({ completed, usage, fault }) => {
      if (fault !== undefined) logger.error('stream relay failed', { requestId, error: fault });
      return finish(upstreamStatus, completed, usage);
    });
    return {
      statusCode: upstreamStatus,
      headers: {
        ...responseHeaders,
        'content-type': framing?.contentType ?? 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      },
      body: relay.body,
      afterResponse,
    };
  }

  // A whole body: a non-streamed answer, or an upstream error before the first byte (its status is preserved).
  let text: string;
  try {
    text = await readUpstreamText(call, timeLeft());
  } catch (error) {
    return upstreamFailed(error);
  }
  if (upstreamStatus >= 400) {
    return {
      statusCode: upstreamStatus,
      headers: { ...responseHeaders, 'content-type': contentType },
      body: translation.errorBody(text),
      afterResponse: finish(upstreamStatus, true, undefined),
    };
  }
  // The answer's JSON is parsed once: its usage is read from it, and a translation converts it.
  const answer = parseJson(text);
  let body: string;
  try {
    body = translation.answerBody(text, answer);
  } catch (error) {
    return upstreamFailed(error);
  }
  return {
    statusCode: upstreamStatus,
    headers: { ...responseHeaders, 'content-type': contentType },
    body,
    afterResponse: finish(upstreamStatus, true, upstreamWire.usageOfAnswer(answer)),
  };
}
