import * as z from '../../validation/zod.ts';
import { outputCapSchema } from '../spend-bounds.ts';

/**
 * The Converse request as the gateway writes it: strict (`z.strictObject`), because every field is one the gateway
 * chose, and Converse refuses fields it does not know. The types come from the schema; tests hold what the
 * translator writes to it. The model is not in the body but in the path (`/model/{modelId}/converse`), and so is
 * whether the answer streams (`/converse-stream`).
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */

const textBlockSchema = z.strictObject({ text: z.string().check(z.minLength(1)) });

/** The image formats Converse takes. https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageBlock.html */
export const converseImageFormats = ['png', 'jpeg', 'gif', 'webp'] as const;
export type ConverseImageFormat = (typeof converseImageFormats)[number];

/** An image inline: `bytes` is its base64 text, as the JSON form of the API carries a blob. */
const imageBlockSchema = z.strictObject({
  image: z.strictObject({
    format: z.enum(converseImageFormats),
    source: z.strictObject({ bytes: z.string().check(z.minLength(1)) }),
  }),
});

const toolUseBlockSchema = z.strictObject({
  toolUse: z.strictObject({
    toolUseId: z.string().check(z.minLength(1)),
    name: z.string().check(z.minLength(1)),
    input: z.record(z.string(), z.unknown()),
  }),
});

const toolResultBlockSchema = z.strictObject({
  toolResult: z.strictObject({
    toolUseId: z.string().check(z.minLength(1)),
    content: z.array(textBlockSchema),
  }),
});

/**
 * Reasoning sent back on a later turn, as the upstream gave it: signed text, or redacted (encrypted) reasoning.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ReasoningContentBlock.html
 */
const reasoningBlockSchema = z.strictObject({
  reasoningContent: z.union([
    z.strictObject({ reasoningText: z.strictObject({ text: z.string(), signature: z.string() }) }),
    z.strictObject({ redactedReasoning: z.strictObject({ data: z.string() }) }),
  ]),
});

const userBlockSchema = z.union([textBlockSchema, imageBlockSchema, toolResultBlockSchema]);
const assistantBlockSchema = z.union([textBlockSchema, reasoningBlockSchema, toolUseBlockSchema]);

const messageSchema = z.union([
  z.strictObject({ role: z.literal('user'), content: z.array(userBlockSchema).check(z.minLength(1)) }),
  z.strictObject({ role: z.literal('assistant'), content: z.array(assistantBlockSchema).check(z.minLength(1)) }),
]);

const toolSpecSchema = z.strictObject({
  toolSpec: z.strictObject({
    name: z.string().check(z.minLength(1)),
    description: z.optional(z.string()),
    inputSchema: z.strictObject({ json: z.record(z.string(), z.unknown()) }),
  }),
});

/** https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolChoice.html: there is no "none". */
const toolChoiceSchema = z.union([
  z.strictObject({ auto: z.strictObject({}) }),
  z.strictObject({ any: z.strictObject({}) }),
  z.strictObject({ tool: z.strictObject({ name: z.string().check(z.minLength(1)) }) }),
]);

export const converseRequestSchema = z.strictObject({
  messages: z.array(messageSchema).check(z.minLength(1)),
  system: z.optional(z.array(textBlockSchema)),
  inferenceConfig: z.strictObject({
    // Always stated: the output allowance the reservation holds.
    maxTokens: outputCapSchema,
    temperature: z.optional(z.number().check(z.nonnegative())),
    topP: z.optional(z.number().check(z.gte(0), z.lte(1))),
    stopSequences: z.optional(z.array(z.string())),
  }),
  toolConfig: z.optional(
    z.strictObject({ tools: z.array(toolSpecSchema).check(z.minLength(1)), toolChoice: z.optional(toolChoiceSchema) }),
  ),
});

export type ConverseRequest = z.infer<typeof converseRequestSchema>;
export type ConverseMessage = z.infer<typeof messageSchema>;
export type ConverseUserBlock = z.infer<typeof userBlockSchema>;
export type ConverseAssistantBlock = z.infer<typeof assistantBlockSchema>;
export type ConverseTextBlock = z.infer<typeof textBlockSchema>;
export type ConverseImageBlock = z.infer<typeof imageBlockSchema>;
export type ConverseReasoningBlock = z.infer<typeof reasoningBlockSchema>;
export type ConverseTool = z.infer<typeof toolSpecSchema>;
export type ConverseToolChoice = z.infer<typeof toolChoiceSchema>;
