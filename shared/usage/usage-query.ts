import { badRequest } from '../http/gateway-error.ts';
import * as z from '../validation/zod.ts';
import { defaultPeriodId, type PeriodId, periodIds } from './usage-period.ts';

/** Whose traffic: the viewer's member (everyone), or the whole team (administrators only). */
export type UsageScope = 'own' | 'team';

export interface UsageQuery {
  period: PeriodId;
  scope: UsageScope;
  /** One key id, or every visible key. */
  keyId: string | undefined;
  /** Provider nodes to keep; empty keeps them all. */
  providers: string[];
}

const identifier = z.string().check(z.trim(), z.minLength(1), z.maxLength(200));

const querySchema = z.strictObject({
  period: z._default(z.enum(periodIds), defaultPeriodId),
  scope: z._default(z.enum(['own', 'team']), 'own'),
  // Not `key`: the read stage refuses that name as a credential in the URL.
  keyId: z.optional(identifier),
  // A comma-separated list, so a multi-select fits in one parameter; repeated names are merged.
  providers: z.pipe(
    z.pipe(
      z._default(z.string(), ''),
      z.transform((value: string) => [
        ...new Set(
          value
            .split(',')
            .map((name) => name.trim())
            .filter((name) => name.length > 0),
        ),
      ]),
    ),
    z.array(identifier).check(z.maxLength(50)),
  ),
});

/** Reads `period`, `scope`, `keyId` and `providers` from the query string; anything else is a 400. */
export function parseUsageQuery(query: URLSearchParams): UsageQuery {
  const entries: Record<string, string> = {};
  for (const [name, value] of query) {
    if (name in entries) throw badRequest('invalid_query', `The query parameter "${name}" is given more than once.`);
    entries[name] = value;
  }
  const parsed = querySchema.safeParse(entries);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`);
    throw badRequest('invalid_query', `Invalid usage query: ${problems.join('; ')}.`);
  }
  return {
    period: parsed.data.period,
    scope: parsed.data.scope,
    keyId: parsed.data.keyId,
    providers: parsed.data.providers,
  };
}
