/**
 * The response header of every token count (`/v1/messages/count_tokens`, `:countTokens`): which kind of count the
 * answer holds, so a client can tell a provider's own count from the gateway's estimate.
 */
export const tokenCountSourceHeader = 'x-gateway-token-count-source';

/**
 * `upstream`: the connection's own count endpoint answered (the provider's tokenizer, exact for its model).
 * `estimate`: the connection has no count endpoint in its format, so the gateway estimated
 * (shared/tokens/estimate-token-count.ts).
 */
export type TokenCountSource = 'upstream' | 'estimate';
