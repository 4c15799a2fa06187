import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertDelivery } from '../../shared/alerts/alert-delivery-state.ts';
import { type AlertEvent, alertId } from '../../shared/alerts/alert-event.ts';
import { createAlertNotifier } from '../../shared/alerts/alert-notifier.ts';
import type { AlertSink } from '../../shared/alerts/alert-sink.ts';
import { deliverDueAlerts } from '../../shared/alerts/deliver-alerts.ts';
import { issueKey } from '../../shared/auth/key-issuance.ts';
import type { GatewayStore } from '../../shared/store/store-port.ts';
import type { RunningRecord } from '../../shared/store/usage-records.ts';
import { startTestStore, type TestStore, testEngineNames } from '../support/test-store.ts';

const day = '2026-11-21';
const at = (second: number) => `2026-11-21T10:00:${String(second).padStart(2, '0')}.000Z`;
const pending: AlertDelivery = { state: 'pending', attempts: 0, nextAttemptAt: at(0), lastError: null };

function event(subject: string, second: number, threshold: number | null = 0.8): AlertEvent {
  return {
    id: alertId('allowance.threshold', subject, threshold, day),
    type: 'allowance.threshold',
    subject: { memberId: subject },
    threshold,
    used: 800,
    allowance: 1000,
    day,
    at: at(second),
  };
}

/** The alerts outbox on every engine: the once-only record, due deliveries, and newest-first pages. */
describe.each(testEngineNames)('alert store on %s', (engineName) => {
  let engine: TestStore;
  let store: GatewayStore;

  beforeAll(async () => {
    engine = await startTestStore(engineName);
    store = engine.store;
  }, 60_000);
  afterAll(async () => engine?.close());

  /** A request admitted and settled with this charge: the day's tokens as settlement leaves them. */
  async function chargeTheDay(memberId: string, charge: number): Promise<void> {
    const key = await issueKey(store, { memberId, name: 'k', expiresAt: null, policy: {}, tag: 'gw' }, new Date(at(0)));
    const requestId = `req_${memberId}`;
    const record: RunningRecord = {
      id: requestId,
      memberId,
      keyId: key.id,
      provider: 'openai',
      model: 'openai/m',
      connectionId: 'con_alerts',
      upstream: 'lb',
      wire: 'openai-chat',
      stream: false,
      startedAt: at(1),
      day,
      reserved: charge,
      state: 'running',
    };
    const admitted = await store.admission.admit({
      memberId,
      keyId: key.id,
      generation: 1,
      requestId,
      day,
      minute: '2026-11-21T10:00',
      reserve: charge,
      now: Date.parse(at(1)),
      leaseExpiresAt: Date.parse(at(1)) + 60_000,
      limits: {},
      running: record,
    });
    expect(admitted.admitted).toBe(true);
    await store.admission.settle({
      record,
      outcome: {
        state: 'completed',
        status: 200,
        endedAt: at(2),
        durationMs: 1000,
        inputTokens: charge - 1,
        cachedInputTokens: null,
        outputTokens: 1,
        charge,
        source: 'measured',
      },
    });
  }

  it('records an alert id once, however many callers race to record it', async () => {
    const raced = await Promise.all(Array.from({ length: 20 }, () => store.alerts.record(event('race', 1), pending)));
    expect(raced.filter(Boolean)).toHaveLength(1);
    const listed = await store.alerts.list({ limit: 50 });
    expect(listed.alerts.filter((alert) => alert.event.subject.memberId === 'race')).toHaveLength(1);
  });

  it('two instances noticing the same crossing at once deliver it once', async () => {
    const sent: string[] = [];
    const sink: AlertSink = { name: 'test', send: async (alert) => void sent.push(alert.id) };
    const member = await store.members.create(
      { name: 'two instances', role: 'member', policy: { dailyTokens: 100 } },
      new Date(at(0)),
    );
    // What settlement leaves: the day's tokens charged, no lease open.
    const instances = [0, 1].map(() =>
      createAlertNotifier({
        store,
        now: () => new Date(at(30)),
        settings: { thresholds: [0.8, 1], deliverable: true },
      }),
    );
    await chargeTheDay(member.id, 90);
    await Promise.all(instances.map((instance) => instance.settled({ memberId: member.id, day, dailyTokens: 100 })));
    const signal = new AbortController().signal;
    await deliverDueAlerts(store.alerts, sink, {
      now: () => new Date(at(59)),
      policy: { retryWindowMs: 60_000, firstBackoffMs: 10, maxBackoffMs: 100 },
      signal,
    });
    expect(sent.filter((id) => id.includes(member.id))).toEqual([alertId('allowance.threshold', member.id, 0.8, day)]);
  });

  it('finds due deliveries oldest first and forgets them once delivered', async () => {
    await store.alerts.record(event('due-b', 5), { ...pending, nextAttemptAt: at(5) });
    await store.alerts.record(event('due-a', 4), { ...pending, nextAttemptAt: at(4) });
    await store.alerts.record(event('later', 6), { ...pending, nextAttemptAt: '2026-11-21T11:00:00.000Z' });
    const due = (await store.alerts.due(at(10), 10)).map((alert) => alert.event.subject.memberId);
    expect(due.indexOf('due-a')).toBeLessThan(due.indexOf('due-b'));
    expect(due).not.toContain('later');
    await store.alerts.setDelivery(event('due-a', 4).id, { state: 'delivered', attempts: 1, deliveredAt: at(11) });
    expect((await store.alerts.due(at(10), 10)).map((alert) => alert.event.subject.memberId)).not.toContain('due-a');
  });

  it('lists newest first, a page at a time, filtered by type', async () => {
    // Later than every alert the tests above raised.
    for (let second = 40; second < 45; second++) await store.alerts.record(event(`page-${second}`, second), pending);
    const first = await store.alerts.list({ limit: 2 });
    expect(first.alerts.map((alert) => alert.event.at)).toEqual([at(44), at(43)]);
    expect(first.next).not.toBeNull();
    const second = await store.alerts.list({ limit: 2, after: first.next ?? undefined });
    expect(second.alerts.map((alert) => alert.event.at)).toEqual([at(42), at(41)]);
    const none = await store.alerts.list({ limit: 5, type: 'key.expiring' });
    expect(none.alerts).toEqual([]);
  });
});
