import * as z from '../../validation/zod.ts';
import { readAnswer, readAnswerPart, readApart } from '../parse-json.ts';
import type { UsageReport } from '../usage-report.ts';
import type { ChatFinishReason } from './openai-chat-finish-reason.ts';
import { type ChatThinkingBlockOut, chatThinkingBlocksSchema } from './openai-chat-thinking-blocks.ts';
import { type ChatUsageOut, chatUsageSchema, usageReportOfChatUsage } from './openai-chat-usage.ts';

/**
 * The `chat.completion` object. Read tolerantly (`chatCompletionSchema`): only the fields the gateway uses, each
 * `z.nullish()`, because compatible engines omit or null fields the vendor always sends. Written exactly
 * (`ChatCompletion`), as the official SDKs read it.
 * https://platform.openai.com/docs/api-reference/chat/object
 */

const toolCallSchema = z.object({
  id: z.nullish(z.string()),
  function: z.nullish(z.object({ name: z.nullish(z.string()), arguments: z.nullish(z.string()) })),
});

/** Where an answer reports its usage: read apart from the rest, so an answer a translator could not read still counts. */
const answerUsagePart = { usage: z.nullish(chatUsageSchema) };

export const chatCompletionSchema = z.object({
  choices: z.nullish(
    z.array(
      z.object({
        message: z.nullish(
          z.object({
            content: z.nullish(z.string()),
            refusal: z.nullish(z.string()),
            // DeepSeek-type thinking, apart from `content`.
            reasoning_content: z.nullish(z.string()),
            // Signed reasoning, where the upstream is itself a gateway that returns it (a malformed list is not read).
            thinking_blocks: readApart(chatThinkingBlocksSchema),
            tool_calls: z.nullish(z.array(toolCallSchema)),
          }),
        ),
        finish_reason: z.nullish(z.string()),
      }),
    ),
  ),
  ...answerUsagePart,
});

export type ChatCompletionAnswer = z.infer<typeof chatCompletionSchema>;

const answerUsageSchema = z.object(answerUsagePart);

export function usageOfChatAnswer(answer: unknown): UsageReport | undefined {
  return readAnswerPart(answerUsageSchema, answer, (parsed) =>
    parsed.usage ? usageReportOfChatUsage(parsed.usage) : undefined,
  );
}

/** A chat answer read for translation; a 200 whose body is not one is an upstream fault (502). */
export function parseChatAnswer(answer: unknown): ChatCompletionAnswer {
  return readAnswer(chatCompletionSchema, answer);
}

export interface ChatToolCallOut {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: [
    {
      index: 0;
      message: {
        role: 'assistant';
        content: string | null;
        refusal: null;
        /** The model's thinking, apart from `content`, as DeepSeek-type APIs return it. */
        reasoning_content?: string;
        /** The same reasoning with the upstream's signatures, to send back unchanged (openai-chat-thinking-blocks.ts). */
        thinking_blocks?: ChatThinkingBlockOut[];
        tool_calls?: ChatToolCallOut[];
      };
      finish_reason: ChatFinishReason;
      logprobs: null;
    },
  ];
  usage?: ChatUsageOut;
}

/** The chat completion id for a gateway request, in the vendor's `chatcmpl-` form. */
export function chatCompletionId(requestId: string): string {
  return `chatcmpl-${requestId}`;
}
