import { startRequestDeadline } from '../clock/monotonic-deadline.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import type { GatewayRequest, GatewayResponse } from '../http/gateway-request.ts';
import { renderFailure } from '../http/render-error.ts';
import type { RouteMatch } from '../http/route-table.ts';
import { type TokenCountSource, tokenCountSourceHeader } from '../http/token-count-source.ts';
import { upstreamNetworkFor } from '../net/upstream-address.ts';
import { estimateRequestTokenCount } from '../tokens/estimate-token-count.ts';
import type { TokenCountWireFormat, WireRequest } from '../wires/client-wire-format.ts';
import { upstreamWireOfModel } from '../wires/model-wire.ts';
import { upstreamWireFor } from '../wires/upstream-wires.ts';
import { formatOfWire } from '../wires/wire-names.ts';
import { dispatchUpstream, readUpstreamText } from './dispatch-upstream.ts';
import { forwardedHeaders, requestToSend } from './forwarded-headers.ts';
import { type ReadAndRouted, readAndRoute } from './route-request.ts';
import { upstreamTargetOf } from './upstream-target.ts';

/**
 * A token count (`POST /v1/messages/count_tokens`, `:countTokens`), for every model: read, authenticate, validate,
 * route and authorize exactly as an inference, then one pass-through call to the count endpoint of a connection of
 * the client's own format where one serves the model, else the gateway's estimate (no upstream call, so none of
 * the client's headers, `anthropic-beta` included, reach a connection of another format). It generates nothing and
 * costs no tokens, so nothing is reserved, admitted or recorded: it does not count against the token allowance,
 * RPM or concurrency, and it leaves no usage record. The answer says which kind of count it holds
 * (token-count-source.ts). Never throws: refusals are rendered in the wire's envelope.
 */
export async function handleTokenCount<Request extends WireRequest>(
  services: GatewayServices,
  request: GatewayRequest,
  route: RouteMatch,
  reader: TokenCountWireFormat<Request>,
): Promise<GatewayResponse> {
  try {
    return await countTokens(services, request, route, reader);
  } catch (error) {
    return renderFailure(error, reader.envelope, { operation: 'token count', requestId: request.requestId });
  }
}

async function countTokens<Request extends WireRequest>(
  services: GatewayServices,
  request: GatewayRequest,
  route: RouteMatch,
  reader: TokenCountWireFormat<Request>,
): Promise<GatewayResponse> {
  const routed = await readAndRoute(services, request, route, reader, {
    admittedAfter: false,
    countingWire: reader.countingWire,
  });
  const { connection, model } = routed.routed;
  // A Bedrock connection counts its Anthropic models only (Converse's have no count): the model's wire decides.
  if (formatOfWire(upstreamWireOfModel(connection.wire, model.upstreamModel)) === reader.countingWire)
    return countUpstream(services, request, routed);
  const answer = reader.estimatedCountAnswer(estimateRequestTokenCount(routed.clientRequest));
  return countAnswer(200, 'application/json', JSON.stringify(answer), 'estimate');
}

function countAnswer(statusCode: number, contentType: string, body: string, source: TokenCountSource) {
  return { statusCode, headers: { 'content-type': contentType, [tokenCountSourceHeader]: source }, body };
}

/** One pass-through call to the count endpoint of a connection of the client's own format. */
async function countUpstream<Request extends WireRequest>(
  services: GatewayServices,
  request: GatewayRequest,
  { clientRequest, routed }: ReadAndRouted<Request>,
): Promise<GatewayResponse> {
  const { config } = services;
  const { model, connection } = routed;
  const upstreamWire = await upstreamWireFor(upstreamWireOfModel(connection.wire, model.upstreamModel));
  // Counting is always native: the client's format is the connection's.
  const forwarded = forwardedHeaders(upstreamWire, true, request.headers);
  const upstream = await requestToSend(
    upstreamWire,
    await upstreamTargetOf(services, connection),
    { body: clientRequest, upstreamModel: model.upstreamModel, stream: false, operation: 'count-tokens' },
    forwarded,
  );

  const deadline = startRequestDeadline(config.maxRequestMs);
  try {
    const call = await dispatchUpstream(upstream, {
      clientSignal: request.clientSignal,
      timeoutMs: config.upstreamTimeoutMs,
      deadline: deadline.signal,
      network: upstreamNetworkFor(config.privateUpstreams, connection),
    });
    // The upstream's answer, error or not, with its own status (spec §7 rule 1).
    const text = await readUpstreamText(call, config.upstreamTimeoutMs);
    const { status } = call.response;
    // In the client's format where the vendor answers in its own (Bedrock's `inputTokens`, its errors).
    const answer =
      status >= 400
        ? (upstreamWire.errorText?.(status, call.response.headers.get, text) ?? text)
        : (upstreamWire.countAnswerText?.(text) ?? text);
    return countAnswer(status, call.response.headers.get('content-type') ?? 'application/json', answer, 'upstream');
  } finally {
    deadline.stop();
  }
}
