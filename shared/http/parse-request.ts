import type * as z from '../validation/zod.ts';
import { badRequest } from './gateway-error.ts';

/** One readable sentence from zod's issues, naming where each problem is (below `at`, for a part read on its own). */
export function describeIssues(error: z.core.$ZodError, at: readonly PropertyKey[] = []): string {
  const problems = error.issues.slice(0, 5).map((issue) => {
    const path = [...at, ...issue.path];
    return `${path.length > 0 ? path.join('.') : 'body'}: ${issue.message}`;
  });
  return `Invalid request: ${problems.join('; ')}.`;
}

/** A client's body read through `schema`; a body it refuses is a 400 `invalid_request` naming the problems. */
export function parseRequest<Schema extends z.ZodMiniType>(schema: Schema, value: unknown): z.output<Schema> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw badRequest('invalid_request', describeIssues(parsed.error));
  return parsed.data;
}
