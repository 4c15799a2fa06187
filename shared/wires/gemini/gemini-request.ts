import * as z from '../../validation/zod.ts';

/**
 * The generate-content request as clients send it: strict on the fields the gateway reads, open (`z.looseObject`)
 * for the rest, which reach the provider untouched. The model is in the path, not the body.
 * https://ai.google.dev/api/generate-content#request-body
 */
export const generateContentRequestSchema = z.looseObject({
  contents: z.array(z.looseObject({ role: z.optional(z.string()), parts: z.array(z.unknown()) })).check(z.minLength(1)),
  generationConfig: z.nullish(z.looseObject({ maxOutputTokens: z.nullish(z.number().check(z.int(), z.positive())) })),
  tools: z.optional(z.array(z.unknown())),
});

export type GenerateContentRequest = z.infer<typeof generateContentRequestSchema>;
