import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { alertId } from '../../shared/alerts/alert-event.ts';
import { reachedThresholds } from '../../shared/alerts/allowance-thresholds.ts';
import { webhookBody, webhookSignature } from '../../shared/alerts/webhook-sink.ts';
import { type AdmissionItem, dayTokens, encodeLease } from '../../shared/store/dynamodb/admission-item.ts';

describe('allowance thresholds', () => {
  it('are reached at the share of the allowance, rounded up to whole tokens', () => {
    expect(reachedThresholds(799, 1000, [0.8, 1])).toEqual([]);
    expect(reachedThresholds(800, 1000, [0.8, 1])).toEqual([0.8]);
    expect(reachedThresholds(800, 1001, [0.8, 1])).toEqual([]);
    expect(reachedThresholds(801, 1001, [0.8, 1])).toEqual([0.8]);
    expect(reachedThresholds(1000, 1000, [0.8, 1])).toEqual([0.8, 1]);
    // Measured usage may run past the allowance: every threshold is then reached.
    expect(reachedThresholds(1500, 1000, [0.8, 1, 1.5])).toEqual([0.8, 1, 1.5]);
    expect(reachedThresholds(10, 0, [0.8])).toEqual([]);
  });

  it('count what is charged, not what open requests still hold reserved', () => {
    // The rule as the DynamoDB store applies it to a member's admission item (SQLite's is in its SQL; the store
    // contract holds both engines' `chargedToday` to it).
    const lease = (day: string, reserved: number) => {
      const admittedAt = Date.parse(`${day}T10:00:00Z`);
      return encodeLease({ slot: 'a', admittedAt, expiresAt: admittedAt + 60_000, reserved });
    };
    const item = (dayCount: number) =>
      ({
        t: { '2026-11-21': dayCount },
        l: { req_1: lease('2026-11-21', 300), req_2: lease('2026-11-20', 999) },
      }) as unknown as AdmissionItem;
    expect(dayTokens(item(1000), '2026-11-21').used).toBe(700);
    expect(dayTokens(item(100), '2026-11-21').used).toBe(0);
  });
});

describe('alert identity and webhook signature', () => {
  it('names one subject, threshold and day', () => {
    expect(alertId('allowance.threshold', 'mem_1', 0.8, '2026-11-21')).toBe('allowance.threshold:mem_1:0.8:2026-11-21');
    expect(alertId('connection.credential-refused', 'con_1', null, '2026-11-21')).toBe(
      'connection.credential-refused:con_1:-:2026-11-21',
    );
  });

  it('signs the raw body with HMAC-SHA256 as sha256=<hex>', () => {
    const body = webhookBody({
      id: 'allowance.threshold:mem_1:1:2026-11-21',
      type: 'allowance.threshold',
      subject: { memberId: 'mem_1', memberName: 'Ada' },
      threshold: 1,
      used: 1000,
      allowance: 1000,
      day: '2026-11-21',
      at: '2026-11-21T10:00:00.000Z',
    });
    expect(JSON.parse(body)).toMatchObject({ type: 'allowance.threshold', time: '2026-11-21T10:00:00.000Z' });
    const expected = createHmac('sha256', 'a-shared-secret-of-16+').update(body).digest('hex');
    expect(webhookSignature(body, 'a-shared-secret-of-16+')).toBe(`sha256=${expected}`);
    expect(webhookSignature(`${body} `, 'a-shared-secret-of-16+')).not.toBe(`sha256=${expected}`);
  });
});
