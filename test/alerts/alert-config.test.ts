import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../shared/config/gateway-config.ts';

describe('alert settings', () => {
  it('default to 80 % and 100 % with no receiver', () => {
    const { alerts } = parseGatewayConfig({});
    expect(alerts.thresholds).toEqual([0.8, 1]);
    expect(alerts.webhook).toBeUndefined();
    expect(alerts.eventBridge).toBeUndefined();
  });

  it('take thresholds in percent, each once and in order', () => {
    expect(parseGatewayConfig({ GATEWAY_ALERT_THRESHOLDS: '100, 50,90,50' }).alerts.thresholds).toEqual([0.5, 0.9, 1]);
  });

  it('refuse thresholds that are not whole percentages, and a webhook without its signing secret', () => {
    for (const thresholds of ['80%', '0', '-5', 'ten', '1001']) {
      expect(() => parseGatewayConfig({ GATEWAY_ALERT_THRESHOLDS: thresholds })).toThrow(/GATEWAY_ALERT_THRESHOLDS/);
    }
    expect(() => parseGatewayConfig({ GATEWAY_ALERT_WEBHOOK_URL: 'https://hooks.example.com/x' })).toThrow(
      /GATEWAY_ALERT_WEBHOOK_SECRET/,
    );
    expect(() =>
      parseGatewayConfig({
        GATEWAY_ALERT_WEBHOOK_URL: 'ftp://hooks.example.com',
        GATEWAY_ALERT_WEBHOOK_SECRET: 'x'.repeat(16),
      }),
    ).toThrow(/GATEWAY_ALERT_WEBHOOK_URL/);
  });
});
