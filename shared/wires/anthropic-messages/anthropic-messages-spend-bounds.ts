import { badRequest } from '../../http/gateway-error.ts';
import { isRecord } from '../parse-json.ts';
import { cappedAt, serverToolRefused, toolTypeOf } from '../spend-bounds.ts';
import type { MessagesRequest } from './anthropic-messages-request.ts';

/**
 * What the reservation bounds on the Messages wire (shared/wires/spend-bounds.ts).
 * https://docs.anthropic.com/en/api/messages
 */

/**
 * Custom tools — a name and an `input_schema`, with no `type` or `type: "custom"` — are the ones the client runs.
 * Every versioned tool the vendor defines is refused: its server tools (web_search_…, web_fetch_…,
 * code_execution_…, tool_search_tool_…), the tools it defines for clients to run (computer_…, bash_…,
 * text_editor_…, memory_…), whose definitions it writes into the prompt itself, input the estimate never sees,
 * MCP toolsets, and whatever comes next; so is `mcp_servers`, the MCP connector, whose tools the vendor calls.
 */
export function assertMessagesCostBounded(request: MessagesRequest): void {
  if (Array.isArray(request.mcp_servers) ? request.mcp_servers.length > 0 : request.mcp_servers != null) {
    throw serverToolRefused('mcp_servers', 'an MCP connector');
  }
  for (const [position, tool] of (request.tools ?? []).entries()) {
    // Not an object: no definition the client runs (a bare name would be the vendor's to resolve).
    if (!isRecord(tool)) {
      throw badRequest(
        'server_tool_refused',
        `tools.${position} is not a tool definition; under a finite token allowance send custom tools (a name and an input_schema) only.`,
      );
    }
    const type = toolTypeOf(tool);
    if (type !== undefined && type !== 'custom') throw serverToolRefused(`tools.${position}`, `the ${type} tool`);
  }
}

/** `max_tokens` covers thinking too: the thinking budget is part of it, never added to it. */
export function withMessagesOutputCap(body: Record<string, unknown>, cap: number): Record<string, unknown> {
  return { ...body, max_tokens: cappedAt(body.max_tokens, cap) };
}
