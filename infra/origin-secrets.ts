import { Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/** The two places an origin secret can be kept: CloudFront sends one, the functions accept both. */
export const originSecretSlots = ['a', 'b'] as const;
export type OriginSecretSlot = (typeof originSecretSlots)[number];

export interface OriginSecretsProps {
  /** The slot whose value CloudFront sends (`--context originSecretSlot=a|b`). */
  readonly activeSlot: OriginSecretSlot;
}

/**
 * The per-deployment secret that proves a request came through CloudFront (shared/http/origin-check.ts). Two
 * generated secrets, each a slot: the distribution adds the active slot's value as a custom origin header (a
 * CloudFormation dynamic reference, so the value is never in the template), and every function accepts the value
 * of either slot. Rotation without downtime (docs/deploy-aws.md, "Rotating the origin secret"): put a new value in the slot
 * CloudFront does not send, wait for the functions' cache, then deploy with the other slot active.
 */
export class OriginSecrets extends Construct {
  readonly activeSlot: OriginSecretSlot;
  readonly secrets: Readonly<Record<OriginSecretSlot, Secret>>;

  constructor(scope: Construct, id: string, props: OriginSecretsProps) {
    super(scope, id);
    this.activeSlot = props.activeSlot;
    const generate = (slot: OriginSecretSlot) => {
      const secret = new Secret(this, `Slot${slot.toUpperCase()}`, {
        description: `Origin secret, slot ${slot}: CloudFront proves with it that a request came through the distribution`,
        // Letters and digits only: the value travels as an HTTP header.
        generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      });
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'Rotated by the two-slot procedure in docs/deploy-aws.md (a new value in the idle slot, then a deployment that ' +
          'moves CloudFront to it): CloudFront must send the new value before the old one stops working, which a ' +
          'rotation function changing the secret in place cannot arrange.',
      });
      return secret;
    };
    this.secrets = { a: generate('a'), b: generate('b') };
  }

  /** The value CloudFront adds to each origin request, as a dynamic reference resolved at deployment. */
  activeValue(): string {
    return this.secrets[this.activeSlot].secretValue.unsafeUnwrap();
  }

  /** What the functions read to check the header: both slots, by ARN. */
  secretIds(): string[] {
    return originSecretSlots.map((slot) => this.secrets[slot].secretArn);
  }

  /** Exactly the action the check calls (GetSecretValue), on exactly these two secrets. */
  grantCheck(target: IFunction): void {
    target.addToRolePolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: this.secretIds() }),
    );
  }
}
