import type { Principal } from '../auth/principal.ts';
import type { GatewayServices } from '../config/gateway-services.ts';
import { badRequest } from '../http/gateway-error.ts';
import type { GatewayRequest } from '../http/gateway-request.ts';
import { describeIssues } from '../http/parse-request.ts';
import { readJsonObject } from '../http/read-request.ts';
import type { AuditChange } from '../store/audit-entries.ts';
import type * as z from '../validation/zod.ts';

/** Who may call a route: administrators only, or any active member (a member's own page, `/me`). */
export type AdminAudience = 'admin' | 'member';

/** What an admin action answers, and the change it made for the audit log (absent for reads). */
export interface AdminAnswer {
  status: number;
  body: unknown;
  /** A successful change: written to the audit log right after it. */
  audit?: AuditChange | undefined;
  /** The full response instead of JSON (`GET /audit.csv`). */
  raw?: { contentType: string; body: string } | undefined;
}

export interface AdminContext {
  services: GatewayServices;
  request: GatewayRequest;
  /** The `:id` segment of the path, decoded and checked; '' when the pattern has none. */
  id: string;
  principal: Principal;
}

export interface AdminRoute {
  method: 'GET' | 'POST';
  /** Path below `/admin/v1`, with `:id` standing for one path segment. */
  pattern: string;
  audience: AdminAudience;
  action(context: AdminContext): Promise<AdminAnswer>;
}

export function parseBody<Schema extends z.ZodMiniType>(schema: Schema, request: GatewayRequest): z.infer<Schema> {
  const parsed = schema.safeParse(readJsonObject(request));
  if (!parsed.success) throw badRequest('invalid_request', describeIssues(parsed.error));
  return parsed.data;
}

/** Parses a query with its schema: a malformed value is a 400, never a 500. */
export function parseQuery<Schema extends z.ZodMiniType>(schema: Schema, request: GatewayRequest): z.infer<Schema> {
  const parsed = schema.safeParse(Object.fromEntries(request.query.entries()));
  if (!parsed.success) throw badRequest('invalid_query', describeIssues(parsed.error));
  return parsed.data;
}
