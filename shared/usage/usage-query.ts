import * as z from 'zod';
import { badRequest } from '../http/gateway-error.ts';
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

const identifier = z.string().trim().min(1).max(200);

const querySchema = z
  .object({
    period: z.enum(periodIds).default(defaultPeriodId),
    scope: z.enum(['own', 'team']).default('own'),
    // Not `key`: the read stage refuses that name as a credential in the URL.
    keyId: identifier.optional(),
    // A comma-separated list, so a multi-select fits in one parameter; repeated names are merged.
    providers: z
      .string()
      .default('')
      .transform((value) => [
        ...new Set(
          value
            .split(',')
            .map((name) => name.trim())
            .filter((name) => name.length > 0),
        ),
      ])
      .pipe(z.array(identifier).max(50)),
  })
  .strict();

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
