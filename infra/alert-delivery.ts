import { type Stack, Validations } from 'aws-cdk-lib';
import { type Alarm, AlarmBase } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Rule } from 'aws-cdk-lib/aws-events';
import { SnsTopic } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct, type IConstruct } from 'constructs';
import type { GatewayFunction } from './gateway-function.ts';

/** Where the stage's alerts go: the account's default event bus, with a source naming the stage. */
export const alertEventBus = 'default';
export const alertEventSource = (stage: string) => `model-gateway.${stage}`;

export interface AlertDeliveryProps {
  readonly stage: string;
  /** `--context alertEmail=…`: an SNS topic with this subscription gets the alerts and the stack's alarms. */
  readonly alertEmail: string | undefined;
  /** Constructs whose alarms should notify the topic too. */
  readonly alarmScopes: readonly IConstruct[];
}

/**
 * Alerts on AWS: the request path records them in the store's outbox; the reaper puts each on EventBridge (source
 * `model-gateway.<stage>`, detail type the alert's type), where any rule a team writes can take them. With an
 * e-mail address, a topic subscribes that address to them and to every alarm of the stack.
 */
export class AlertDelivery extends Construct {
  readonly topic: Topic | undefined;

  constructor(scope: Construct, id: string, props: AlertDeliveryProps) {
    super(scope, id);
    if (props.alertEmail === undefined) return;

    const topic = new Topic(this, 'Topic', {
      displayName: `Model gateway ${props.stage}: allowance alerts and alarms`,
      enforceSSL: true,
    });
    topic.addSubscription(new EmailSubscription(props.alertEmail));
    new Rule(this, 'AlertsToTopic', {
      description: `The alerts of stage ${props.stage}, to the alert e-mail`,
      eventPattern: { source: [alertEventSource(props.stage)] },
      targets: [new SnsTopic(topic)],
    });
    const notify = new SnsAction(topic);
    for (const scope of props.alarmScopes) {
      for (const alarm of scope.node.findAll().filter((node): node is Alarm => node instanceof AlarmBase)) {
        alarm.addAlarmAction(notify);
      }
    }
    Validations.of(topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alerts and alarm notices carry ids, names and counts, never a secret or a prompt; EventBridge and ' +
        'CloudWatch cannot publish to a topic under the AWS-managed SNS key, and a customer key for it would cost ' +
        'more than what it protects.',
    });
    this.topic = topic;
  }
}

/** Lets a function put events on the default bus: the one place the stack grants it (infra/function-permissions.ts). */
export function grantAlertEvents(stack: Stack, gatewayFunction: GatewayFunction): void {
  gatewayFunction.function.addToRolePolicy(
    new PolicyStatement({
      actions: ['events:PutEvents'],
      resources: [stack.formatArn({ service: 'events', resource: 'event-bus', resourceName: alertEventBus })],
    }),
  );
}
