import * as z from '../../validation/zod.ts';

/**
 * The generate-content request as clients send it: strict on the fields the gateway reads, open (`z.looseObject`)
 * for the rest, which reach the provider untouched. The model is in the path, not the body.
 * https://ai.google.dev/api/generate-content#request-body
 */
const contentsSchema = z
  .array(z.looseObject({ role: z.optional(z.string()), parts: z.array(z.unknown()) }))
  .check(z.minLength(1));

export const generateContentRequestSchema = z.looseObject({
  contents: contentsSchema,
  generationConfig: z.nullish(z.looseObject({ maxOutputTokens: z.nullish(z.number().check(z.int(), z.positive())) })),
  tools: z.optional(z.array(z.unknown())),
});

export type GenerateContentRequest = z.infer<typeof generateContentRequestSchema>;

/**
 * A token count (`:countTokens`): the `contents` to count, or a whole `generateContentRequest` (its system
 * instruction and tools counted too), not both. https://ai.google.dev/api/tokens#request-body
 */
export const countTokensRequestSchema = z
  .looseObject({
    contents: z.optional(contentsSchema),
    generateContentRequest: z.optional(z.looseObject({ contents: contentsSchema })),
  })
  .check(
    z.refine((request) => (request.contents === undefined) !== (request.generateContentRequest === undefined), {
      message: 'send either contents or generateContentRequest',
    }),
  );

export type CountTokensRequest = z.infer<typeof countTokensRequestSchema>;
