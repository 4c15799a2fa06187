import { Duration } from 'aws-cdk-lib';
import {
  HeadersFrameOption,
  HeadersReferrerPolicy,
  type ResponseCustomHeader,
  type ResponseHeadersPolicyProps,
  type ResponseSecurityHeadersBehavior,
} from 'aws-cdk-lib/aws-cloudfront';

type Mutable<T> = { -readonly [Key in keyof T]: T[Key] };

/**
 * CloudFront's form of the headers the local host sends with the usage page (`usagePageHeaders`), so both hosts
 * answer with the same ones. A header this does not know stops the synthesis instead of being dropped.
 */
export function responseHeadersPolicyFor(
  headers: Readonly<Record<string, string>>,
): Pick<ResponseHeadersPolicyProps, 'securityHeadersBehavior' | 'customHeadersBehavior'> {
  const security: Mutable<ResponseSecurityHeadersBehavior> = {
    // Only ever reached over HTTPS (the behaviour redirects HTTP), so browsers may remember that.
    strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
  };
  const custom: ResponseCustomHeader[] = [];
  for (const [name, value] of Object.entries(headers)) {
    switch (name.toLowerCase()) {
      case 'content-security-policy':
        security.contentSecurityPolicy = { contentSecurityPolicy: value, override: true };
        break;
      case 'x-content-type-options':
        if (value !== 'nosniff') throw new Error(`CloudFront can only send x-content-type-options: nosniff`);
        security.contentTypeOptions = { override: true };
        break;
      case 'x-frame-options':
        security.frameOptions = { frameOption: frameOption(value), override: true };
        break;
      case 'referrer-policy':
        security.referrerPolicy = { referrerPolicy: referrerPolicy(value), override: true };
        break;
      case 'cache-control':
        custom.push({ header: 'Cache-Control', value, override: true });
        break;
      default:
        throw new Error(`no CloudFront mapping for the usage page header ${name}`);
    }
  }
  return {
    securityHeadersBehavior: security,
    ...(custom.length > 0 ? { customHeadersBehavior: { customHeaders: custom } } : {}),
  };
}

function frameOption(value: string): HeadersFrameOption {
  switch (value.toUpperCase()) {
    case 'DENY':
      return HeadersFrameOption.DENY;
    case 'SAMEORIGIN':
      return HeadersFrameOption.SAMEORIGIN;
    default:
      throw new Error(`unknown x-frame-options value ${value}`);
  }
}

function referrerPolicy(value: string): HeadersReferrerPolicy {
  const known = Object.values(HeadersReferrerPolicy).find((policy) => policy === value);
  if (!known) throw new Error(`unknown referrer-policy value ${value}`);
  return known;
}
