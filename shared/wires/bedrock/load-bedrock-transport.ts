/**
 * The invoke wire's door to the Bedrock transport (bedrock-transport.ts: signer, event-stream codec): imported when
 * a request first signs or reads a stream. The invoke wire itself is loaded with the rest of Bedrock's code
 * (shared/translation/client-reach/bedrock-reach.ts), on a process's first Bedrock request.
 */
export function loadBedrockTransport(): Promise<typeof import('./bedrock-transport.ts')> {
  return import('./bedrock-transport.ts');
}
