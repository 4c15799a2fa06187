import { badRequest, type GatewayError } from '../http/gateway-error.ts';
import * as z from '../validation/zod.ts';
import { isRecord } from './parse-json.ts';

/**
 * What the reservation must bound, as each wire states it (each wire's own `<wire>-spend-bounds.ts` holds its
 * rule): how many answers a request asks for, the cap on each one's output, and the parts of a request whose cost
 * no reservation can bound — tools the provider runs on its own side (search, code execution, file search, computer
 * use, MCP), billed per call and feeding the model input that no estimate saw. Each wire allows the tools the
 * client runs itself and refuses everything else, so a server tool announced tomorrow is refused too.
 */

/**
 * The largest output cap a request may state for one answer: a 32-bit integer, as the vendors' APIs read it
 * (Gemini's `maxOutputTokens` is an int32), and far above what any model produces. With at most
 * `largestAnswerCount` answers it keeps every reservation, and every day's total of them, a safe integer, so a
 * member without a daily allowance cannot have a reservation of 10^20 tokens stored (and charged, if no usage comes).
 */
export const largestOutputCap = 2_147_483_647;

/** The most answers (`n`, `candidateCount`) one request may ask for: OpenAI's own limit on `n`. */
export const largestAnswerCount = 128;

/** An output cap as a client states it: a positive whole number of tokens, at most `largestOutputCap`. */
export const outputCapSchema = z.number().check(z.int(), z.positive(), z.lte(largestOutputCap));

/** How many answers a request asks for: a positive whole number, at most `largestAnswerCount`. */
export const answerCountSchema = z.number().check(z.int(), z.positive(), z.lte(largestAnswerCount));

/** A 400 for a server-side tool under a finite token allowance, naming where it is in the request. */
export function serverToolRefused(where: string, what: string): GatewayError {
  return badRequest(
    'server_tool_refused',
    `${where} is ${what}, which runs on the provider's side at a cost the reservation cannot bound; under a finite token allowance send function tools only.`,
  );
}

/** The `type` a tool definition names, for messages; `undefined` when it names none. */
export function toolTypeOf(tool: unknown): string | undefined {
  const type = isRecord(tool) ? tool.type : undefined;
  return typeof type === 'string' ? type : undefined;
}

/** `value` lowered to `cap` when it states more; `cap` when it states nothing. */
export function cappedAt(value: unknown, cap: number): number {
  return typeof value === 'number' && value <= cap ? value : cap;
}
