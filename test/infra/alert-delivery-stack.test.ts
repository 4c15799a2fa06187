import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDeploymentSettings } from '../../infra/deployment-settings.ts';
import { type SynthesizedStack, synthesizeStack } from './synthesize-stack.ts';
import type { TemplateResource } from './template-queries.ts';

/** Issue 23 item 5 on AWS: alerts on EventBridge; with `alertEmail`, an SNS topic the alarms notify too. */
const stage = 'alerts';
let plain: SynthesizedStack;
let withEmail: SynthesizedStack;

beforeAll(async () => {
  [plain, withEmail] = await Promise.all([
    synthesizeStack(stage),
    synthesizeStack(stage, { alertEmail: 'ops@example.com' }),
  ]);
}, 120_000);

afterAll(async () => {
  await plain?.cleanup();
  await withEmail?.cleanup();
});

const ofType = (stack: SynthesizedStack, type: string): TemplateResource[] =>
  Object.values(stack.resources).filter((resource) => resource.Type === type);

describe('alert delivery in the stack', () => {
  it('tells every function where alerts go: the default bus, with the stage as the source', () => {
    for (const fn of ofType(plain, 'AWS::Lambda::Function')) {
      const variables = (fn.Properties['Environment'] as { Variables?: Record<string, unknown> } | undefined)
        ?.Variables;
      if (!variables?.['GATEWAY_SECRET_PREFIX']) continue;
      expect(variables['GATEWAY_ALERT_EVENT_BUS']).toBe('default');
      expect(variables['GATEWAY_ALERT_EVENT_SOURCE']).toBe(`model-gateway.${stage}`);
    }
  });

  it('has no topic and no alarm action without an alert e-mail', () => {
    expect(ofType(plain, 'AWS::SNS::Topic')).toHaveLength(0);
    for (const alarm of ofType(plain, 'AWS::CloudWatch::Alarm'))
      expect(alarm.Properties['AlarmActions']).toBeUndefined();
  });

  it('with alertEmail, subscribes it to a TLS-only topic that gets the stage`s alerts and every alarm', () => {
    const [topic] = ofType(withEmail, 'AWS::SNS::Topic');
    expect(topic).toBeDefined();
    const topicId = Object.entries(withEmail.resources).find(([, resource]) => resource === topic)?.[0];
    expect(ofType(withEmail, 'AWS::SNS::Subscription')).toEqual([
      expect.objectContaining({
        Properties: expect.objectContaining({
          Protocol: 'email',
          Endpoint: 'ops@example.com',
          TopicArn: { Ref: topicId },
        }),
      }),
    ]);
    const policies = ofType(withEmail, 'AWS::SNS::TopicPolicy').map((policy) => JSON.stringify(policy.Properties));
    expect(policies.some((policy) => policy.includes('aws:SecureTransport'))).toBe(true);
    const alertRule = ofType(withEmail, 'AWS::Events::Rule').find(
      (rule) =>
        JSON.stringify(rule.Properties['EventPattern']) === JSON.stringify({ source: [`model-gateway.${stage}`] }),
    );
    expect(alertRule?.Properties['Targets']).toEqual([expect.objectContaining({ Arn: { Ref: topicId } })]);
    const alarms = ofType(withEmail, 'AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) expect(alarm.Properties['AlarmActions']).toEqual([{ Ref: topicId }]);
  });

  it('refuses an alertEmail that is not an e-mail address', () => {
    expect(() => readDeploymentSettings((name) => ({ alertEmail: 'not-an-address' })[name])).toThrow(/alertEmail/);
  });
});
