import { defaultProvider } from '@aws-sdk/credential-provider-node';
// Node's own SHA-256 behind the SDK's hash interface: the one the SDK clients in every bundle already carry.
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { GatewayError } from '../../http/gateway-error.ts';
import type { UpstreamHttpRequest, UpstreamTarget } from '../upstream-wire-format.ts';

/**
 * Signs a Bedrock request with AWS Signature Version 4 (service `bedrock`) as the host's own AWS identity: the
 * default credential chain (the function role's credentials in Lambda's environment — infra/lambda-credentials.ts
 * — the usual variables or profile on one machine). Loaded only when a Bedrock connection without an API key is
 * called. One signer per region and one set of credentials per process, refreshed before they expire: a request
 * costs one signature, not a client or a credential lookup.
 */

/** Credentials are fetched again this long before they expire, so none is used as it lapses in flight. */
const refreshBeforeExpiryMs = 5 * 60_000;

function heldCredentials(chain: AwsCredentialIdentityProvider): AwsCredentialIdentityProvider {
  let held: AwsCredentialIdentity | undefined;
  let pending: Promise<AwsCredentialIdentity> | undefined;
  return async () => {
    const expiresAt = held?.expiration?.getTime();
    if (held && (expiresAt === undefined || expiresAt - Date.now() > refreshBeforeExpiryMs)) return held;
    pending ??= chain().finally(() => {
      pending = undefined;
    });
    held = await pending;
    return held;
  };
}

let credentials: AwsCredentialIdentityProvider | undefined;
const signers = new Map<string, SignatureV4>();

function signerFor(region: string): SignatureV4 {
  let signer = signers.get(region);
  if (!signer) {
    credentials ??= heldCredentials(defaultProvider());
    signer = new SignatureV4({ service: 'bedrock', region, credentials, sha256: Sha256 });
    signers.set(region, signer);
  }
  return signer;
}

/** The request with `host`, `x-amz-date`, the session token where there is one, and `authorization` added. */
export async function signBedrockRequest(request: UpstreamHttpRequest, region: string): Promise<UpstreamHttpRequest> {
  const url = new URL(request.url);
  let signed: { headers: Record<string, string> };
  try {
    signed = await signerFor(region).sign({
      method: request.method ?? 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port === '' ? {} : { port: Number(url.port) }),
      // As sent: the model id already escaped once; the signer escapes it again for the canonical form, as AWS does.
      path: url.pathname,
      query: {},
      headers: { ...request.headers, host: url.host },
      body: request.body,
    });
  } catch (error) {
    throw new GatewayError(
      502,
      'aws_credentials_unavailable',
      'The gateway has no AWS credentials to sign the Bedrock request with (its role, environment or profile).',
      { cause: error },
    );
  }
  return { ...request, headers: signed.headers };
}

/**
 * The request as it leaves for Bedrock: as built where the connection holds a Bedrock API key (it went as a bearer
 * token), otherwise signed for the connection's region as the host's AWS identity.
 */
export async function signedForBedrock(
  request: UpstreamHttpRequest,
  target: UpstreamTarget,
): Promise<UpstreamHttpRequest> {
  if (target.credential !== '') return request;
  if (target.region === undefined) {
    throw new GatewayError(500, 'connection_misconfigured', 'This Bedrock connection names no AWS region.');
  }
  return signBedrockRequest(request, target.region);
}
