import type { Policy } from './admin-types.ts';
import { Field, parseOptionalInteger } from './ui.tsx';

/** A policy as the form holds it: text per field, blank meaning "no limit". */
export interface PolicyText {
  dailyTokens: string;
  rpm: string;
  concurrency: string;
  maxOutput: string;
  providers: string;
  models: string;
}

export function policyText(policy: Policy): PolicyText {
  const number = (value: number | undefined) => (value === undefined ? '' : String(value));
  return {
    dailyTokens: number(policy.dailyTokens),
    rpm: number(policy.rpm),
    concurrency: number(policy.concurrency),
    maxOutput: number(policy.maxOutput),
    providers: (policy.providers ?? []).join(', '),
    models: (policy.models ?? []).join(', '),
  };
}

function list(text: string): string[] | undefined {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items.length > 0 ? items : undefined;
}

/** The policy the form describes; the server's schema then checks it, in the browser and again at the gateway. */
export function policyFromText(text: PolicyText, withDailyTokens: boolean): Policy {
  const entries: [keyof Policy, unknown][] = [
    ['dailyTokens', withDailyTokens ? parseOptionalInteger(text.dailyTokens) : undefined],
    ['rpm', parseOptionalInteger(text.rpm)],
    ['concurrency', parseOptionalInteger(text.concurrency)],
    ['maxOutput', parseOptionalInteger(text.maxOutput)],
    ['providers', list(text.providers)],
    ['models', list(text.models)],
  ];
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined)) as Policy;
}

export function PolicyFields(props: {
  value: PolicyText;
  onChange: (value: PolicyText) => void;
  withDailyTokens: boolean;
}) {
  const set = (name: keyof PolicyText) => (value: string) => props.onChange({ ...props.value, [name]: value });
  const blank = 'Blank: no limit.';
  return (
    <fieldset class="policy-fields">
      <legend>Limits</legend>
      {props.withDailyTokens ? (
        <Field label="Daily tokens" value={props.value.dailyTokens} onInput={set('dailyTokens')} hint={blank} />
      ) : null}
      <Field label="Requests per minute" value={props.value.rpm} onInput={set('rpm')} hint={blank} />
      <Field label="Concurrency" value={props.value.concurrency} onInput={set('concurrency')} hint={blank} />
      <Field label="Max output tokens" value={props.value.maxOutput} onInput={set('maxOutput')} hint={blank} />
      <Field
        label="Providers"
        value={props.value.providers}
        onInput={set('providers')}
        hint="Comma-separated. Blank: all."
      />
      <Field label="Models" value={props.value.models} onInput={set('models')} hint="Comma-separated. Blank: all." />
    </fieldset>
  );
}
