import { createHash, timingSafeEqual } from 'node:crypto';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

/** The identity the fake Bedrock knows, as AWS knows an account's keys; tests put it in the gateway's environment. */
export const fakeAwsCredentials = {
  accessKeyId: 'AKIAFAKEBEDROCKTEST1',
  secretAccessKey: 'fake-bedrock-secret-access-key-for-tests-only',
  sessionToken: 'fake-bedrock-session-token',
} as const;

/** A Bedrock API key the fake accepts as a bearer token. */
export const fakeBedrockApiKey = 'ABSKfakebedrockapikey';

export interface SignatureRefusal {
  status: number;
  exception: 'UnrecognizedClientException' | 'InvalidSignatureException' | 'IncompleteSignatureException';
  message: string;
}

const authorizationPattern =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

/**
 * What AWS checks of a request before Bedrock reads it: a known access key (else 403 UnrecognizedClientException),
 * the session token that goes with it, and a signature that the well-kept signer recomputes, from the request as
 * received, to the same value (else 403 InvalidSignatureException). The recomputation signs exactly the headers
 * the request says it signed, at the instant it says it was signed.
 */
export async function checkSignature(input: {
  method: string;
  /** The path as received, still escaped. */
  path: string;
  headers: Readonly<Record<string, string>>;
  body: string;
}): Promise<SignatureRefusal | undefined> {
  const authorization = input.headers['authorization'];
  if (authorization?.startsWith('Bearer ')) {
    if (authorization.slice('Bearer '.length) === fakeBedrockApiKey) return undefined;
    return { status: 403, exception: 'UnrecognizedClientException', message: 'Invalid API Key format' };
  }
  const parts = authorization === undefined ? null : authorizationPattern.exec(authorization);
  if (!parts) {
    return {
      status: 403,
      exception: 'IncompleteSignatureException',
      message: 'Authorization header requires a signature.',
    };
  }
  const [, accessKeyId, , region, service, signedHeaderList, signature] = parts as unknown as string[];
  if (accessKeyId !== fakeAwsCredentials.accessKeyId || service !== 'bedrock') {
    return {
      status: 403,
      exception: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    };
  }
  if (input.headers['x-amz-security-token'] !== fakeAwsCredentials.sessionToken) {
    return {
      status: 403,
      exception: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    };
  }
  const amzDate = input.headers['x-amz-date'] ?? '';
  const signingDate = parseAmzDate(amzDate);
  const signedNames = (signedHeaderList as string).split(';');
  if (!signingDate || !signedNames.includes('host') || !signedNames.includes('x-amz-date')) {
    return { status: 403, exception: 'IncompleteSignatureException', message: 'The request signature is incomplete.' };
  }
  // A stated payload hash is what the signer signs in place of the body's: it must be the body's.
  const statedHash = input.headers['x-amz-content-sha256'];
  if (statedHash !== undefined && statedHash !== createHash('sha256').update(input.body).digest('hex')) {
    return {
      status: 403,
      exception: 'InvalidSignatureException',
      message: 'The provided payload hash does not match the body.',
    };
  }
  const headers: Record<string, string> = {};
  for (const name of signedNames) headers[name] = input.headers[name] ?? '';
  const host = headers['host'] ?? '';
  const signer = new SignatureV4({
    service: 'bedrock',
    region: region as string,
    credentials: fakeAwsCredentials,
    sha256: Sha256,
  });
  const recomputed = await signer.sign(
    {
      method: input.method,
      protocol: 'http:',
      hostname: host.replace(/:\d+$/, ''),
      path: input.path,
      query: {},
      headers,
      body: input.body,
    },
    { signingDate },
  );
  const expected = /Signature=([0-9a-f]{64})$/.exec(recomputed.headers['authorization'] ?? '')?.[1] ?? '';
  const same =
    expected.length === (signature as string).length &&
    timingSafeEqual(Buffer.from(expected), Buffer.from(signature as string));
  if (!same) {
    return {
      status: 403,
      exception: 'InvalidSignatureException',
      message: 'The request signature we calculated does not match the signature you provided.',
    };
  }
  return undefined;
}

/** `20260101T120000Z` → that instant; `undefined` when malformed. */
function parseAmzDate(text: string): Date | undefined {
  const parts = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!parts) return undefined;
  const [, year, month, day, hour, minute, second] = parts.map(Number) as number[];
  return new Date(Date.UTC(year as number, (month as number) - 1, day, hour, minute, second));
}
