import type { ConverseAnswer } from '../bedrock-converse/bedrock-converse-answer.ts';
import type { ConverseStreamEvent } from '../bedrock-converse/bedrock-converse-stream-event.ts';
import { bedrockConverseUpstreamWire } from '../bedrock-converse/bedrock-converse-upstream-wire.ts';
import type { UpstreamWireFormat } from '../upstream-wire-format.ts';
import { converseEventStreamAsSse } from './bedrock-converse-event-stream.ts';
import { bedrockMessageOf, exceptionName } from './bedrock-errors.ts';
import { signedForBedrock } from './bedrock-signing.ts';

/** Bedrock's streamed answers: AWS's binary event stream. */
const eventStreamContentType = 'application/vnd.amazon.eventstream';

/**
 * Converse on a Bedrock connection: the Converse format (shared/wires/bedrock-converse/) carried by the Bedrock
 * transport — a Bedrock API key as a bearer token or else a SigV4 signature as the host's AWS identity, the
 * binary event stream decoded into Converse's JSON events, and an error before the first byte read with its
 * exception from `x-amzn-ErrorType` (written into the body as `__type`, where the Converse hop reads it).
 */
export const bedrockConverseTransportWire: UpstreamWireFormat<ConverseAnswer, ConverseStreamEvent> = {
  ...bedrockConverseUpstreamWire,
  buildUpstreamRequest(input) {
    const built = bedrockConverseUpstreamWire.buildUpstreamRequest(input);
    const { credential } = input.target;
    return credential === ''
      ? built
      : { ...built, headers: { ...built.headers, authorization: `Bearer ${credential}` } };
  },
  finishRequest: signedForBedrock,
  binaryStream: {
    contentType: eventStreamContentType,
    toSse: async (body) => converseEventStreamAsSse(body),
  },
  errorText(status, header, text) {
    const exception = exceptionName(header('x-amzn-errortype'));
    const message = bedrockMessageOf(text) ?? `Amazon Bedrock answered ${status}.`;
    return JSON.stringify({
      message: exception === undefined ? message : `${exception}: ${message}`,
      ...(exception === undefined ? {} : { __type: exception }),
    });
  },
  // The runtime endpoint lists no models: a connection test proves one with a one-token generation.
  modelList: undefined,
};
