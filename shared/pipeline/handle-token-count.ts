import type { GatewayServices } from '../config/gateway-services.ts';
import { badRequest, GatewayError } from '../http/gateway-error.ts';
import type { GatewayRequest, GatewayResponse } from '../http/gateway-request.ts';
import { renderFailure } from '../http/render-error.ts';
import type { RouteMatch } from '../http/route-table.ts';
import { upstreamNetworkFor } from '../net/upstream-address.ts';
import type { ClientRequestReader, WireRequest } from '../wires/client-wire-format.ts';
import { upstreamWireFor } from '../wires/upstream-wires.ts';
import { dispatchUpstream, readUpstreamText } from './dispatch-upstream.ts';
import { forwardedHeaders, withForwardedHeaders } from './forwarded-headers.ts';
import { readAndRoute } from './route-request.ts';

/**
 * A token count (`POST /v1/messages/count_tokens`): read, authenticate, validate, route and authorize exactly as
 * an inference, then one pass-through call to the connection's own count endpoint. It generates nothing and
 * costs no tokens, so nothing is reserved, admitted or recorded: it does not count against the token allowance,
 * RPM or concurrency, and it leaves no usage record. Never throws: refusals are rendered in the wire's envelope.
 */
export async function handleTokenCount<Request extends WireRequest>(
  services: GatewayServices,
  request: GatewayRequest,
  route: RouteMatch,
  reader: ClientRequestReader<Request>,
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
  reader: ClientRequestReader<Request>,
): Promise<GatewayResponse> {
  const { config } = services;
  const { clientRequest, routed } = await readAndRoute(services, request, route, reader, {
    admittedAfter: false,
  }).catch((error: unknown) => {
    throw uncountable(error);
  });
  const { model, connection } = routed;
  const upstreamWire = upstreamWireFor(connection.wire);
  // Counting is always native: only messages-format connections count.
  const forwarded = forwardedHeaders(upstreamWire, true, request.headers);
  const credential = await services.secrets.read(connection.secretName);

  const call = await dispatchUpstream(
    withForwardedHeaders(
      upstreamWire.buildUpstreamRequest({
        target: { baseUrl: connection.baseUrl, credential },
        body: clientRequest,
        upstreamModel: model.upstreamModel,
        stream: false,
        operation: 'count-tokens',
      }),
      forwarded,
    ),
    {
      clientSignal: request.clientSignal,
      timeoutMs: config.upstreamTimeoutMs,
      network: upstreamNetworkFor(config.privateUpstreams, connection),
    },
  );
  // The upstream's answer, error or not, with its own status (spec §7 rule 1).
  const text = await readUpstreamText(call, config.upstreamTimeoutMs);
  return {
    statusCode: call.response.status,
    headers: { 'content-type': call.response.headers.get('content-type') ?? 'application/json' },
    body: text,
  };
}

/**
 * Routing refuses a model no connection can serve in this format with the generic `unsupported_wire`; for a
 * count the reason is always the same — only messages-format connections count tokens — so it gets its own code.
 */
function uncountable(error: unknown): unknown {
  if (!(error instanceof GatewayError) || error.code !== 'unsupported_wire') return error;
  return badRequest(
    'count_tokens_unsupported',
    'The connection serving this model cannot count tokens; only messages-format connections can.',
  );
}
