import { ClientGoneError, GatewayError } from '../http/gateway-error.ts';
import { UpstreamAddressRefused, type UpstreamNetwork } from '../net/upstream-address.ts';
import { requestUpstream, type UpstreamResponse } from '../net/upstream-transport.ts';
import type { UpstreamHttpRequest } from '../wires/upstream-wire-format.ts';

export interface UpstreamCall {
  response: UpstreamResponse;
  /** Aborts the upstream request (client gone, idle time-out). */
  abort: (reason: unknown) => void;
  signal: AbortSignal;
}

const timeoutReason = Symbol('upstream time-out');

/**
 * Sends the request upstream once: no retry, no fallback (spec §4.3 rule 5), and no redirect followed. The
 * caller's abort signal cancels it; a connection failure is a 502 and no answer within the time-out a 504 (spec §7).
 * The request deadline aborts the call at any point, the body's reading included, as a time-out.
 */
export async function dispatchUpstream(
  upstreamRequest: UpstreamHttpRequest,
  options: {
    clientSignal: AbortSignal | undefined;
    /** Time allowed for the response headers. */
    timeoutMs: number;
    /** The request deadline's signal (shared/clock/monotonic-deadline.ts). */
    deadline: AbortSignal;
    /** Whether this connection may reach loopback and private addresses (shared/net/upstream-address.ts). */
    network: UpstreamNetwork;
  },
): Promise<UpstreamCall> {
  const controller = new AbortController();
  const abort = (reason: unknown) => controller.abort(reason);
  const onClientAbort = () => abort(new ClientGoneError());
  options.clientSignal?.addEventListener('abort', onClientAbort, { once: true });
  if (options.clientSignal?.aborted) onClientAbort();
  const onDeadline = () => abort(timeoutReason);
  options.deadline.addEventListener('abort', onDeadline, { once: true });
  if (options.deadline.aborted) onDeadline();
  const timer = setTimeout(() => abort(timeoutReason), options.timeoutMs);
  try {
    const response = await requestUpstream(upstreamRequest.url, {
      method: upstreamRequest.method ?? 'POST',
      headers: upstreamRequest.headers,
      body: upstreamRequest.body,
      signal: controller.signal,
      network: options.network,
    });
    // Following would send the credential and the client's body to whatever host the answer names.
    if (isRedirect(response.status)) {
      response.discard();
      throw redirectRefused(response.status);
    }
    return { response, abort, signal: controller.signal };
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw upstreamFailure(controller.signal, error);
  } finally {
    clearTimeout(timer);
  }
}

function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}

function redirectRefused(status: number): GatewayError {
  return new GatewayError(
    502,
    'upstream_redirect_refused',
    `The upstream answered ${status} (a redirect); the gateway never follows one. Check the connection's base URL.`,
  );
}

export function upstreamFailure(signal: AbortSignal, error: unknown): Error {
  if (signal.reason instanceof ClientGoneError) return signal.reason;
  if (signal.reason === timeoutReason) {
    return new GatewayError(504, 'upstream_timeout', 'The upstream did not answer in time.', { cause: error });
  }
  if (error instanceof UpstreamAddressRefused) {
    return new GatewayError(
      502,
      'upstream_address_refused',
      `The connection's address may not be reached from here (${error.reason}).`,
      { cause: error },
    );
  }
  return new GatewayError(502, 'upstream_unreachable', 'The upstream connection failed.', { cause: error });
}

/**
 * Reads a whole (non-streamed) upstream body, still under the time-out. The headers came, so a body that breaks off
 * is an interrupted answer, not an unreachable upstream.
 */
export async function readUpstreamText(call: UpstreamCall, timeoutMs: number): Promise<string> {
  const timer = setTimeout(() => call.abort(timeoutReason), timeoutMs);
  try {
    return await call.response.text();
  } catch (error) {
    const failure = upstreamFailure(call.signal, error);
    if (failure instanceof GatewayError && failure.code === 'upstream_unreachable') {
      throw new GatewayError(502, 'upstream_interrupted', 'The upstream answer broke off before it was complete.', {
        cause: error,
      });
    }
    throw failure;
  } finally {
    clearTimeout(timer);
  }
}

export { timeoutReason as upstreamTimeoutReason };
