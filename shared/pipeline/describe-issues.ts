import type * as z from 'zod';

/** One readable sentence from zod's issues, naming where each problem is. */
export function describeIssues(error: z.ZodError): string {
  const problems = error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message}`);
  return `Invalid request: ${problems.join('; ')}.`;
}
