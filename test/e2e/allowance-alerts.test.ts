import { createHmac } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoredAlert } from '../../shared/alerts/alert-delivery-state.ts';
import { type ReceivedAlert, startWebhookReceiver, type WebhookReceiver } from '../alerts/webhook-receiver.ts';
import { runInProcess } from '../cli/cli-harness.ts';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream.ts';
import { openaiClient } from '../support/sdk-clients.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

/** Issue 23 item 5: alerts that reach people, once per subject, threshold and day, never on the request path. */
const webhookSecret = 'alert-signing-secret-0123456789';
let receiver: WebhookReceiver;
let upstream: FakeUpstream;
let gateway: TestGateway;
let connectionId: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  upstream = await startFakeUpstream();
  gateway = await startTestGateway({
    environment: {
      GATEWAY_ALERT_WEBHOOK_URL: receiver.url,
      GATEWAY_ALERT_WEBHOOK_SECRET: webhookSecret,
      // Retries come quickly in a test; the window still bounds them.
      GATEWAY_ALERT_RETRY_FIRST_MS: '50',
    },
  });
  connectionId = await gateway.admin.createConnection({
    provider: 'acme',
    wire: 'openai-chat',
    baseUrl: `${upstream.url}/v1`,
    models: ['acme-1'],
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await receiver?.close();
});

beforeEach(() => {
  upstream.reset();
  receiver.setMode('accept');
});

const ask = (key: string, content = 'hi') =>
  openaiClient(gateway, key).chat.completions.create({
    model: 'acme/acme-1',
    messages: [{ role: 'user', content }],
    max_tokens: 1,
  });

/** Each answer charges exactly this many tokens, as measured by the provider. */
function chargeEachAnswer(tokens: number): void {
  upstream.setScenario(() => ({
    type: 'answer',
    usage: { inputTokens: tokens - 1, cachedInputTokens: 0, outputTokens: 1 },
  }));
}

/** Settlement and alert checks run after the answer: wait for the gateway's background work to be done. */
async function settled(): Promise<void> {
  for (let round = 0; round < 5; round++) await Promise.allSettled([...gateway.host.services.background]);
}

const deliveredTo = (memberId: string): ReceivedAlert[] =>
  receiver.accepted.filter((alert) => (alert.json['subject'] as { memberId?: string }).memberId === memberId);

async function storedAlerts(): Promise<StoredAlert[]> {
  return (await gateway.admin.call<{ alerts: StoredAlert[] }>('GET', '/alerts?limit=200')).alerts;
}

describe('allowance alerts on one machine (webhook)', () => {
  it('raises exactly one signed event per threshold when 50 concurrent requests cross 80 % and 100 % together', async () => {
    // Each request reserves about 47 tokens and is charged 50: all 50 fit in the day, and together they use it up.
    const member = await gateway.admin.createMemberWithKey({ dailyTokens: 2500 });
    chargeEachAnswer(50);
    const answers = await Promise.allSettled(Array.from({ length: 50 }, () => ask(member.key)));
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(50);
    await settled();
    await receiver.waitForAccepted(2);
    await settled();

    const events = deliveredTo(member.memberId);
    expect(events.map((event) => event.json['threshold']).sort()).toEqual([0.8, 1]);
    const day = gateway.host.services.now().toISOString().slice(0, 10);
    for (const event of events) {
      const expected = `sha256=${createHmac('sha256', webhookSecret).update(event.rawBody).digest('hex')}`;
      expect(event.headers['x-gateway-signature']).toBe(expected);
      expect(event.headers['content-type']).toBe('application/json');
      expect(event.json).toMatchObject({
        type: 'allowance.threshold',
        subject: { memberId: member.memberId, memberName: 'test member' },
        allowance: 2500,
        day,
      });
      expect(event.json['used']).toBeGreaterThanOrEqual(Math.ceil((event.json['threshold'] as number) * 2500));
      expect(Date.parse(event.json['time'] as string)).not.toBeNaN();
    }
    // The outbox says the same, and holds each id once.
    const stored = (await storedAlerts()).filter((alert) => alert.event.subject.memberId === member.memberId);
    expect(stored).toHaveLength(2);
    expect(stored.every((alert) => alert.delivery.state === 'delivered')).toBe(true);
  });

  it('never delays an answer while the receiver hangs, and delivers once it answers', async () => {
    const member = await gateway.admin.createMemberWithKey({ dailyTokens: 100 });
    const other = await gateway.admin.createMemberWithKey({});
    receiver.setMode('hang');
    chargeEachAnswer(100);
    await ask(member.key);
    await settled();
    await expect.poll(() => receiver.held, { timeout: 10_000 }).toBeGreaterThan(0);

    // While the delivery hangs, the member hears its 429 and other traffic flows.
    const refusal = await ask(member.key).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(OpenAI.RateLimitError);
    chargeEachAnswer(5);
    await expect(ask(other.key)).resolves.toBeDefined();
    expect(receiver.held).toBeGreaterThan(0);

    receiver.release();
    await expect.poll(() => deliveredTo(member.memberId).length, { timeout: 10_000 }).toBe(2);
  });

  it('retries a receiver that is down or failing until it accepts, and delivers each event once', async () => {
    const member = await gateway.admin.createMemberWithKey({ dailyTokens: 60 });
    receiver.setMode('reset');
    chargeEachAnswer(60);
    await ask(member.key);
    await settled();
    await expect.poll(() => receiver.attempts.length, { timeout: 10_000 }).toBeGreaterThan(2);
    receiver.setMode('fail');
    const failing = receiver.attempts.length;
    await expect.poll(() => receiver.attempts.length, { timeout: 10_000 }).toBeGreaterThan(failing + 1);
    receiver.setMode('accept');
    await expect.poll(() => deliveredTo(member.memberId).length, { timeout: 15_000 }).toBe(2);
    await settled();
    // Nothing is delivered twice once accepted.
    expect(deliveredTo(member.memberId)).toHaveLength(2);
    const stored = (await storedAlerts()).filter((alert) => alert.event.subject.memberId === member.memberId);
    expect(stored.map((alert) => alert.delivery)).toEqual([
      expect.objectContaining({ state: 'delivered' }),
      expect.objectContaining({ state: 'delivered' }),
    ]);
    expect(stored.some((alert) => alert.delivery.state === 'delivered' && alert.delivery.attempts > 1)).toBe(true);
  });

  it('says nothing for a member without an allowance, and never carries a prompt or a key', async () => {
    const unlimited = await gateway.admin.createMemberWithKey({});
    const limited = await gateway.admin.createMemberWithKey({ dailyTokens: 60 });
    chargeEachAnswer(60);
    const canary = 'CANARY-PROMPT-7f3a';
    await ask(unlimited.key, canary);
    await ask(limited.key, canary);
    await settled();
    await expect.poll(() => deliveredTo(limited.memberId).length, { timeout: 10_000 }).toBe(2);
    expect(deliveredTo(unlimited.memberId)).toHaveLength(0);
    for (const alert of receiver.attempts) {
      expect(alert.rawBody).not.toContain(canary);
      expect(alert.rawBody).not.toContain(limited.key);
      expect(alert.rawBody).not.toContain('upstream-secret-credential');
    }
  });
});

describe('other alerts', () => {
  it('announces a refused provider credential once a day, however often the upstream refuses it', async () => {
    const member = await gateway.admin.createMemberWithKey({});
    upstream.setScenario(() => ({ type: 'error', status: 401, message: 'invalid api key' }));
    for (let request = 0; request < 3; request++) {
      const error = await ask(member.key).catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    }
    await settled();
    await expect
      .poll(() => receiver.accepted.filter((alert) => alert.json['type'] === 'connection.credential-refused').length, {
        timeout: 10_000,
      })
      .toBe(1);
    const [event] = receiver.accepted.filter((alert) => alert.json['type'] === 'connection.credential-refused');
    expect(event?.json).toMatchObject({ subject: { connectionId, provider: 'acme' }, used: 401 });
  });

  it('announces a key that expires within 7 days once, and not one that expires later', async () => {
    const memberId = await gateway.admin.createMember({});
    const now = gateway.host.services.now().getTime();
    const soon = await gateway.admin.createKey(memberId, { expiresAt: new Date(now + 3 * 86_400_000).toISOString() });
    const later = await gateway.admin.createKey(memberId, { expiresAt: new Date(now + 30 * 86_400_000).toISOString() });
    expect(await gateway.host.services.alerts.scanExpiringKeys()).toBeGreaterThanOrEqual(1);
    // A second scan within the hour does nothing; the alert's id would keep it to one announcement anyway.
    expect(await gateway.host.services.alerts.scanExpiringKeys()).toBe(0);
    await expect
      .poll(() => receiver.accepted.filter((alert) => alert.json['type'] === 'key.expiring').length, {
        timeout: 10_000,
      })
      .toBeGreaterThanOrEqual(1);
    const keys = receiver.accepted
      .filter((alert) => alert.json['type'] === 'key.expiring')
      .map((alert) => (alert.json['subject'] as { keyId: string }).keyId);
    expect(keys).toContain(soon.id);
    expect(keys).not.toContain(later.id);
    expect(keys.filter((key) => key === soon.id)).toHaveLength(1);
  });

  it('announces a holder wallet whose daily requests ran out', async () => {
    await gateway.admin.createConnection({
      provider: 'beta',
      wire: 'openai-chat',
      baseUrl: `${upstream.url}/v1`,
      upstream: 'beta',
    });
    await gateway.admin.call('POST', '/holders', { wallet: '0xalerts10', usd: 10 });
    const { key } = await gateway.admin.call<{ key: string }>('POST', '/holders/0xalerts10/keys');
    const client = openaiClient(gateway, key);
    const outcomes: string[] = [];
    for (let request = 0; request < 12; request++) {
      outcomes.push(
        await client.chat.completions
          .create({ model: 'beta/beta-4-31b', messages: [{ role: 'user', content: 'hi' }] })
          .then(
            () => 'ok',
            (error: unknown) => String((error as { code?: string }).code),
          ),
      );
    }
    expect(outcomes.slice(10)).toEqual(['holder_daily_limit', 'holder_daily_limit']);
    await settled();
    await expect
      .poll(() => receiver.accepted.filter((alert) => alert.json['type'] === 'holder.requests-exhausted').length, {
        timeout: 10_000,
      })
      .toBe(1);
  });

  it('lists alerts newest first, a page at a time, and refuses a malformed query with 400', async () => {
    const first = await gateway.admin.call<{ alerts: StoredAlert[]; nextCursor: string | null }>(
      'GET',
      '/alerts?limit=2',
    );
    expect(first.alerts).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await gateway.admin.call<{ alerts: StoredAlert[] }>(
      'GET',
      `/alerts?limit=2&cursor=${first.nextCursor}`,
    );
    const times = [...first.alerts, ...second.alerts].map((alert) => alert.event.at);
    expect(times).toEqual([...times].sort().reverse());
    expect(new Set([...first.alerts, ...second.alerts].map((alert) => alert.event.id)).size).toBe(4);
    for (const query of ['limit=0', 'limit=abc', 'cursor=%7B', 'type=nonsense']) {
      const response = await fetch(`${gateway.url}/admin/v1/alerts?${query}`, {
        headers: { authorization: `Bearer ${gateway.adminKey}` },
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toMatch(/^invalid_/);
    }
  });
});

describe('alerts list (the admin CLI)', () => {
  const cli = (argv: string[]) =>
    runInProcess(argv, {
      env: { GATEWAY_URL: gateway.url, GATEWAY_ADMIN_KEY: gateway.adminKey },
      fetch: globalThis.fetch,
    });

  it('prints the recent alerts newest first, by type, with their delivery', async () => {
    const listed = await cli(['alerts', 'list', '--type', 'allowance.threshold', '--limit', '3']);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^RAISED\s+TYPE\s+DAY\s+DELIVERY\s+SUBJECT\s+DETAIL$/);
    expect(lines.slice(1, 4).every((line) => line.includes('allowance.threshold') && line.includes('delivered'))).toBe(
      true,
    );
    expect(listed.stdout).toMatch(/More: --cursor [0-9a-f]+/);
    const json = await cli(['alerts', 'list', '--json']);
    expect(JSON.parse(json.stdout).alerts.length).toBeGreaterThan(3);
    const refused = await cli(['alerts', 'list', '--type', 'nonsense']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/--type expects one of/);
  });
});
