import { logger } from '../observability/logger.ts';
import type { GatewayStore } from '../store/store-port.ts';
import { firstDelivery } from './alert-delivery-state.ts';
import { type AlertEvent, type AlertSubject, type AlertType, alertId } from './alert-event.ts';
import { reachedThresholds } from './allowance-thresholds.ts';

/** Keys expiring within this many days are announced, once per key and expiry day. */
export const keyExpiryWarningDays = 7;
const dayMs = 86_400_000;
const utcDay = (date: Date) => date.toISOString().slice(0, 10);

export interface AlertSettings {
  /** Shares of the daily allowance that raise an alert, ascending (default 0.8 and 1). */
  thresholds: readonly number[];
  /** Whether anything delivers recorded alerts (a webhook here, or EventBridge from the reaper on AWS). */
  deliverable: boolean;
}

/**
 * Notices what people must hear about and records it in the outbox, once per subject, threshold and day. Every
 * entry is called off the answer's path (after settlement, or beside a refusal) and never throws: an alert that
 * could not be recorded is logged, and the request it came from is not affected.
 */
export interface AlertNotifier {
  /** After a settled request of a member: which shares of the day's allowance the charged tokens reached. */
  settled(input: { memberId: string; day: string; dailyTokens: number | undefined }): Promise<void>;
  /** A holder wallet was refused for its daily requests. */
  holderExhausted(input: { memberId: string; keyId: string; limit: number; day: string }): Promise<void>;
  /** A connection's upstream answered 401 or 403: its stored credential is refused. */
  credentialRefused(input: { connectionId: string; provider: string; status: number }): Promise<void>;
  /**
   * Announces live keys that expire within the warning window (how many it newly announced); at most one scan an
   * hour per process, the alert's id keeping each key to one announcement per expiry day across processes.
   */
  scanExpiringKeys(): Promise<number>;
  /** Calls `listener` after each alert this process records (an in-process deliverer: infra/local). */
  onRecorded(listener: () => void): void;
}

export interface AlertNotifierOptions {
  store: GatewayStore;
  settings: AlertSettings;
  now: () => Date;
}

export function createAlertNotifier(options: AlertNotifierOptions): AlertNotifier {
  const { store, settings, now } = options;
  /** Per member, the day and how many thresholds this process saw reached: no store work until another is. */
  const reachedByMember = new Map<string, { day: string; reached: number }>();
  const recordedListeners = new Set<() => void>();
  let lastScanHour: string | undefined;

  async function raise(
    type: AlertType,
    subjectId: string,
    fields: Omit<AlertEvent, 'id' | 'type' | 'at'> & { subject: AlertSubject },
  ): Promise<boolean> {
    const at = now();
    const event: AlertEvent = {
      id: alertId(type, subjectId, fields.threshold, fields.day),
      type,
      at: at.toISOString(),
      ...fields,
    };
    if (!(await store.alerts.record(event, firstDelivery(settings.deliverable, at)))) return false;
    logger.info('alert raised', { alertId: event.id, type, subject: event.subject, threshold: event.threshold });
    // A deliverer in this process is told; it never makes whoever raised the alert wait.
    for (const listener of recordedListeners) listener();
    return true;
  }

  /** Entries never throw: an alert is worth a log line, never a failed request. */
  const quietly =
    <Input>(what: string, work: (input: Input) => Promise<void>) =>
    async (input: Input) => {
      try {
        await work(input);
      } catch (error) {
        logger.error(`alert check failed: ${what}`, { error });
      }
    };

  return {
    settled: quietly('allowance', async ({ memberId, day, dailyTokens }) => {
      if (dailyTokens === undefined || settings.thresholds.length === 0) return;
      const seen = reachedByMember.get(memberId);
      if (seen?.day === day && seen.reached >= settings.thresholds.length) return;
      // One bounded read per settlement; the member's name only once a threshold is reached.
      const charged = await store.admission.chargedToday(memberId, day);
      if (charged === undefined) return;
      const reached = reachedThresholds(charged, dailyTokens, settings.thresholds);
      const alreadySeen = seen?.day === day ? seen.reached : 0;
      if (reached.length <= alreadySeen) return;
      const member = await store.members.get(memberId);
      if (!member) return;
      reachedByMember.set(memberId, { day, reached: reached.length });
      for (const threshold of reached.slice(alreadySeen)) {
        await raise('allowance.threshold', memberId, {
          subject: { memberId, memberName: member.name },
          threshold,
          used: charged,
          allowance: dailyTokens,
          day,
        });
      }
    }),

    holderExhausted: quietly('holder requests', async ({ memberId, keyId, limit, day }) => {
      await raise('holder.requests-exhausted', memberId, {
        subject: { memberId, keyId },
        threshold: null,
        used: limit,
        allowance: limit,
        day,
      });
    }),

    credentialRefused: quietly('connection credential', async ({ connectionId, provider, status }) => {
      await raise('connection.credential-refused', connectionId, {
        subject: { connectionId, provider },
        threshold: null,
        used: status,
        allowance: null,
        day: utcDay(now()),
      });
    }),

    async scanExpiringKeys() {
      const at = now();
      const hour = at.toISOString().slice(0, 13);
      if (lastScanHour === hour) return 0;
      lastScanHour = hour;
      let announced = 0;
      try {
        const horizon = at.getTime() + keyExpiryWarningDays * dayMs;
        const expiring = (await store.keys.list()).filter((key) => {
          if (key.state !== 'active' || key.expiresAt === null) return false;
          const expiresAt = Date.parse(key.expiresAt);
          return expiresAt > at.getTime() && expiresAt <= horizon;
        });
        const names = new Map<string, string>();
        for (const key of expiring) {
          if (!names.has(key.memberId)) names.set(key.memberId, (await store.members.get(key.memberId))?.name ?? '');
          const raised = await raise('key.expiring', key.id, {
            subject: { memberId: key.memberId, memberName: names.get(key.memberId), keyId: key.id, keyName: key.name },
            threshold: keyExpiryWarningDays,
            used: null,
            allowance: null,
            day: (key.expiresAt as string).slice(0, 10),
          });
          if (raised) announced++;
        }
      } catch (error) {
        logger.error('alert check failed: expiring keys', { error });
      }
      return announced;
    },

    onRecorded(listener) {
      recordedListeners.add(listener);
    },
  };
}
