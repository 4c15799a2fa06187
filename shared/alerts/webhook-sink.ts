import { createHmac } from 'node:crypto';
import type { AlertEvent } from './alert-event.ts';
import { type AlertSink, PermanentDeliveryError } from './alert-sink.ts';

/** The header that carries the signature: `sha256=<hex HMAC-SHA256 of the raw body under the shared secret>`. */
export const webhookSignatureHeader = 'x-gateway-signature';

/** The JSON a webhook receives: the event, its raising time as `time`. Ids and names only, never a secret. */
export function webhookBody(event: AlertEvent): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    subject: event.subject,
    threshold: event.threshold,
    used: event.used,
    allowance: event.allowance,
    day: event.day,
    time: event.at,
  });
}

export function webhookSignature(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export interface WebhookOptions {
  url: string;
  /** Signs every body; absent, the header is left out (the receiver cannot tell the gateway from anyone else). */
  secret: string | undefined;
  /** One attempt's limit, connection to last byte. */
  attemptTimeoutMs: number;
}

/** POSTs each event as JSON, signed; a redirect is a failure, never followed (the body would go elsewhere). */
export function webhookSink(options: WebhookOptions): AlertSink {
  return {
    name: 'webhook',
    async send(event, signal) {
      const body = webhookBody(event);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': 'model-gateway-alerts',
        'x-gateway-event-id': event.id,
      };
      if (options.secret !== undefined) headers[webhookSignatureHeader] = webhookSignature(body, options.secret);
      const response = await fetch(options.url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(options.attemptTimeoutMs)]),
      });
      // The answer's body means nothing to the gateway; reading it frees the connection.
      await response.arrayBuffer().catch(() => undefined);
      if (response.ok) return;
      const problem = `the webhook answered ${response.status}`;
      const retryable = response.status >= 500 || response.status === 408 || response.status === 429;
      throw retryable ? new Error(problem) : new PermanentDeliveryError(problem);
    },
  };
}
