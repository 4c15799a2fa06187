import * as z from '../../validation/zod.ts';
import { answerCountSchema, outputCapSchema } from '../spend-bounds.ts';

const outputCap = z.nullish(outputCapSchema);
const answerCount = z.nullish(answerCountSchema);

/**
 * The settings the reservation reads. The vendor parses its JSON as protobuf does, so every field has two names,
 * camelCase and snake_case: both are read (gemini-spend-bounds.ts), so neither slips past the reservation.
 */
const generationConfigSchema = z.looseObject({
  maxOutputTokens: outputCap,
  max_output_tokens: outputCap,
  candidateCount: answerCount,
  candidate_count: answerCount,
});

const contentsSchema = z
  .array(z.looseObject({ role: z.optional(z.string()), parts: z.array(z.unknown()) }))
  .check(z.minLength(1));

/**
 * The generate-content request as clients send it: strict on the fields the gateway reads, open (`z.looseObject`)
 * for the rest, which reach the provider untouched. The model is in the path, not the body.
 * https://ai.google.dev/api/generate-content#request-body
 */
export const generateContentRequestSchema = z.looseObject({
  contents: contentsSchema,
  generationConfig: z.nullish(generationConfigSchema),
  generation_config: z.nullish(generationConfigSchema),
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

export type GenerationConfig = z.infer<typeof generationConfigSchema>;

export type CountTokensRequest = z.infer<typeof countTokensRequestSchema>;
