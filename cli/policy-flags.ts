import { checkProviderModel, integerFlag, listFlag } from './flag-definitions.ts';

/**
 * The policy flags members, keys and the team's default share: the same kinds of limit, named as the admin API's
 * policy fields are (`policySchema`: dailyTokens, rpm, concurrency, maxOutput, providers, models). A key's policy
 * narrows its member's and has no daily tokens (a member's keys share one allowance).
 */
export const accessFlags = {
  providers: listFlag('a,b', 'providers allowed (default: all)'),
  models: listFlag('p/m,...', 'models allowed, as provider/model (default: all)', checkProviderModel),
};
export const limitFlags = {
  rpm: integerFlag('N', 'requests per minute', 1),
  concurrency: integerFlag('N', 'requests in flight at once', 1),
  'max-output': integerFlag('N', 'largest output, in tokens, a request may ask for', 1),
};
export const dailyTokensFlag = { 'daily-tokens': integerFlag('N', 'daily token allowance') };

export interface PolicyFlagValues {
  readonly 'daily-tokens'?: number | undefined;
  readonly rpm: number | undefined;
  readonly concurrency: number | undefined;
  readonly 'max-output': number | undefined;
  readonly providers: string[] | undefined;
  readonly models: string[] | undefined;
}

/** `undefined` when no policy flag was given, so the body carries no empty policy for the server to interpret. */
export function policyFrom(flags: PolicyFlagValues) {
  const policy = {
    dailyTokens: flags['daily-tokens'],
    rpm: flags.rpm,
    concurrency: flags.concurrency,
    maxOutput: flags['max-output'],
    providers: flags.providers,
    models: flags.models,
  };
  return Object.values(policy).some((value) => value !== undefined) ? policy : undefined;
}
