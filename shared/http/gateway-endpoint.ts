import type { GatewayConfig } from '../config/gateway-config.ts';

/**
 * The viewer's own `Host`, which CloudFront does not forward to a function URL (the origin answers only to its own
 * host): the distribution's viewer-request function copies it into this header, replacing any the viewer sent.
 */
export const viewerHostHeader = 'x-gateway-viewer-host';

/**
 * The gateway's address as its clients reach it (spec: `{gateway_host}`, the address without a path): the
 * configured public URL where there is one; behind CloudFront (functions that check the origin secret) the
 * viewer's host over HTTPS, the only scheme the distribution serves; on the one-machine host the `Host` the
 * request came with, over HTTP.
 */
export function gatewayEndpoint(
  config: Pick<GatewayConfig, 'publicUrl' | 'originSecretIds'>,
  headers: Record<string, string | undefined>,
): string | undefined {
  if (config.publicUrl) return config.publicUrl;
  if (config.originSecretIds) {
    const viewerHost = headers[viewerHostHeader];
    return viewerHost ? `https://${viewerHost}` : undefined;
  }
  return headers.host ? `http://${headers.host}` : undefined;
}
