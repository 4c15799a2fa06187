import { badRequest } from '../http/gateway-error.ts';
import type {
  BuildUpstreamRequestInput,
  UpstreamHttpRequest,
  UpstreamTarget,
  UpstreamWireFormat,
} from '../wires/upstream-wire-format.ts';

/** A comma-separated list of feature names, as the SDKs send them (`name-2025-01-01,other-name`). */
const featureList = /^[A-Za-z0-9._-]+(?:\s*,\s*[A-Za-z0-9._-]+)*$/;
const longestValue = 1024;

/**
 * The client headers a native call (the client speaks the upstream's own format) carries upstream: those the
 * provider wire names, checked before anything is reserved. A translated call forwards none: the client's flags
 * name features of its own format. A malformed value is a 400, never silently dropped or passed on.
 */
export function forwardedHeaders(
  upstreamWire: Pick<UpstreamWireFormat<unknown, unknown>, 'forwardedClientHeaders'>,
  native: boolean,
  headers: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const forwarded: Record<string, string> = {};
  if (!native) return forwarded;
  for (const name of upstreamWire.forwardedClientHeaders) {
    const value = headers[name]?.trim();
    if (!value) continue;
    if (value.length > longestValue || !featureList.test(value)) {
      throw badRequest('invalid_header', `The ${name} header must be a comma-separated list of feature names.`);
    }
    forwarded[name] = value;
  }
  return forwarded;
}

/**
 * The upstream request with the forwarded headers added; the wire's own headers (credential, version) win. A wire
 * that carries the flags in its body (Bedrock's `anthropic_beta`) took them there and gets no header.
 */
export function withForwardedHeaders(
  request: UpstreamHttpRequest,
  forwarded: Record<string, string>,
  upstreamWire?: Pick<UpstreamWireFormat<unknown, unknown>, 'forwardedIntoBody'>,
) {
  if (upstreamWire?.forwardedIntoBody) return request;
  return { ...request, headers: { ...forwarded, ...request.headers } };
}

/**
 * The request as sent: built, the forwarded flags added, then finished by the wire (Bedrock's SigV4 signature
 * covers the final headers and body, so it comes last).
 */
export async function requestToSend(
  upstreamWire: UpstreamWireFormat<unknown, unknown>,
  target: UpstreamTarget,
  input: Omit<BuildUpstreamRequestInput, 'target' | 'forwarded'>,
  forwarded: Record<string, string>,
): Promise<UpstreamHttpRequest> {
  const built = upstreamWire.buildUpstreamRequest({ ...input, target, forwarded });
  const request = withForwardedHeaders(built, forwarded, upstreamWire);
  return upstreamWire.finishRequest ? upstreamWire.finishRequest(request, target) : request;
}
