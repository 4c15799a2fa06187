import { createHash } from 'node:crypto';
import type { LegacyUsageRecord } from '../store/usage-records.ts';
import * as z from '../validation/zod.ts';

/**
 * The usage records of the earlier engine generation (0.1), as the import accepts them.
 *
 * The 0.1 format was never specified, so this is a documented, tolerant reading of one JSON object per line:
 *
 * - `timestamp` (or `time`, `ts`), required: an ISO-8601 date-time with `Z` or an offset, or epoch seconds, or
 *   epoch milliseconds (a number of 10^11 or more is taken as milliseconds); between 2000 and 2100.
 * - `keyId` / `key_id` and `memberId` / `member_id`: at least one of them.
 * - `provider` and `model`, required: non-empty strings.
 * - optional, `null` when absent or not reported: `requestId` / `request_id`; `status` (an HTTP status 100-599, or
 *   the outcome word the engine wrote, such as "ok"); `inputTokens` / `input_tokens` / `promptTokens` /
 *   `prompt_tokens`; `cachedInputTokens` / `cached_input_tokens`; `outputTokens` / `output_tokens` /
 *   `completionTokens` / `completion_tokens` (whole numbers of 0 or more); `durationMs` / `duration_ms`.
 *   Two spellings of one field must agree.
 * - every other field is kept, as JSON text in `raw`, except prompt and answer bodies and credentials, which are
 *   removed at any depth and never stored (see `withheldReason`). The CLI removes them before sending, so they
 *   never leave the operator's machine; the gateway removes them again for any other caller.
 *
 * The admin CLI (cli/legacy-usage-file.ts) checks a file with this same module before it sends anything, and sends
 * each line's `cleaned` object, so the two cannot disagree. Keep it pure (no HTTP, no store) for that reason.
 */

/** Stored names of the known fields and the spellings a 0.1 line may use for each. */
const knownFieldSpellings = {
  timestamp: ['timestamp', 'time', 'ts'],
  requestId: ['requestId', 'request_id'],
  keyId: ['keyId', 'key_id'],
  memberId: ['memberId', 'member_id'],
  provider: ['provider'],
  model: ['model'],
  status: ['status'],
  inputTokens: ['inputTokens', 'input_tokens', 'promptTokens', 'prompt_tokens'],
  cachedInputTokens: ['cachedInputTokens', 'cached_input_tokens'],
  outputTokens: ['outputTokens', 'output_tokens', 'completionTokens', 'completion_tokens'],
  durationMs: ['durationMs', 'duration_ms'],
} as const satisfies Record<string, readonly string[]>;

type KnownField = keyof typeof knownFieldSpellings;

const fieldOfSpelling = new Map<string, KnownField>(
  Object.entries(knownFieldSpellings).flatMap(([field, spellings]) =>
    spellings.map((spelling): [string, KnownField] => [spelling, field as KnownField]),
  ),
);

/** A stored record, as JSON, may not exceed this after bodies are removed; a DynamoDB item holds 400 KB. */
export const maxLegacyRecordBytes = 32_768;

/**
 * Records per import request: it bounds the puts one admin invocation makes within its time-out. 100 records of the
 * largest size (32 KiB) would pass the 2 MiB body limit, so the CLI also splits batches by size.
 */
export const maxLegacyRecordsPerRequest = 100;

const earliest = Date.UTC(2000, 0, 1);
const latest = Date.UTC(2100, 0, 1);

// Messages for the whole field: zod would otherwise report whichever alternative the value came closest to.
const timestampError = 'expected an ISO-8601 date-time with a zone, or epoch seconds or milliseconds';
const statusError = 'expected an HTTP status (100-599) or a short outcome word';

const text = z.string().check(z.trim(), z.minLength(1), z.maxLength(256));
const tokenCount = z.nullish(z.number().check(z.int(), z.nonnegative()));

const knownFieldsSchema = z.object({
  timestamp: z.union(
    [z.iso.datetime({ offset: true, error: timestampError }), z.number().check(z.nonnegative(timestampError))],
    {
      error: timestampError,
    },
  ),
  requestId: z.nullish(text),
  keyId: z.nullish(text),
  memberId: z.nullish(text),
  provider: text,
  model: text,
  status: z.nullish(
    z.union(
      [
        z.number().check(z.int(statusError), z.gte(100, statusError), z.lte(599, statusError)),
        z.string().check(z.trim(), z.minLength(1), z.maxLength(64)),
      ],
      {
        error: statusError,
      },
    ),
  ),
  inputTokens: tokenCount,
  cachedInputTokens: tokenCount,
  outputTokens: tokenCount,
  durationMs: z.nullish(z.number().check(z.nonnegative())),
});

// Names are compared without case, `_` or `-`, so `output_text`, `outputText` and `Output-Text` are one name.
const bodyNames = new Set([
  'input',
  'inputs',
  'output',
  'outputs',
  'choices',
  'candidates',
  'parts',
  'delta',
  'response',
  'responses',
  'request',
  'system',
  'tools',
  'toolcalls',
  'functioncall',
  'arguments',
  'query',
  'question',
  'reply',
  'history',
  'documents',
]);
const bodyFragments = [
  'prompt',
  'message',
  'completion',
  'content',
  'text',
  'answer',
  'body',
  'instruction',
  'transcript',
  'conversation',
];
const credentialNames = new Set(['key', 'token', 'auth', 'bearer', 'headers', 'accesskey']);
const credentialFragments = ['secret', 'password', 'apikey', 'accesstoken', 'authorization', 'credential', 'cookie'];

/**
 * Why a field of a 0.1 line is never stored, or `undefined` when it may be. Names that end in `tokens` or `count`
 * hold counts, not text, so `prompt_tokens` and `message_count` are kept while `prompt` and `messages` are not. A
 * bare `key` may hold a key's secret, so it is withheld too; a line names its key with `keyId`.
 */
export function withheldReason(name: string): 'body' | 'credential' | undefined {
  const normalized = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (credentialNames.has(normalized) || credentialFragments.some((fragment) => normalized.includes(fragment))) {
    return 'credential';
  }
  if (/(tokens|count)$/.test(normalized)) return undefined;
  if (bodyNames.has(normalized) || bodyFragments.some((fragment) => normalized.includes(fragment))) return 'body';
  return undefined;
}

function withhold(value: unknown, path: string, withheld: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => withhold(item, `${path}[]`, withheld));
  if (value === null || typeof value !== 'object') return value;
  const kept: [string, unknown][] = [];
  for (const [name, field] of Object.entries(value)) {
    const fieldPath = path === '' ? name : `${path}.${name}`;
    // Known fields are read, never withheld, whatever their name looks like.
    if (path === '' && fieldOfSpelling.has(name)) kept.push([name, field]);
    else if (withheldReason(name)) withheld.add(fieldPath);
    else kept.push([name, withhold(field, fieldPath, withheld)]);
  }
  // fromEntries defines own properties, so a field named `__proto__` stays data instead of becoming a prototype.
  return Object.fromEntries(kept);
}

/** JSON with keys in sorted order at every depth, so the hash does not depend on how a line orders its fields. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([name, field]) => `${JSON.stringify(name)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function toInstant(timestamp: string | number): Date {
  if (typeof timestamp === 'string') return new Date(timestamp);
  return new Date(timestamp >= 1e11 ? timestamp : timestamp * 1000);
}

export type LegacyRecordReading =
  | {
      ok: true;
      record: LegacyUsageRecord;
      /**
       * The line without its withheld fields, in its own spellings: what a client sends, so bodies and credentials
       * never leave its machine. Read again, it gives the same record with nothing withheld.
       */
      cleaned: Record<string, unknown>;
      /** Paths of the fields removed as bodies or credentials, such as `messages` or `engine.response_text`. */
      withheld: string[];
    }
  | { ok: false; problem: string };

/** Reads one 0.1 line (already parsed from JSON) into the record to store, or says what is wrong with it. */
export function readLegacyUsageRecord(line: unknown): LegacyRecordReading {
  if (line === null || typeof line !== 'object' || Array.isArray(line)) {
    return { ok: false, problem: 'expected a JSON object' };
  }
  const withheld = new Set<string>();
  const cleaned = withhold(line, '', withheld) as Record<string, unknown>;

  const known: Partial<Record<KnownField, unknown>> = {};
  const spellingUsed: Partial<Record<KnownField, string>> = {};
  const rest: [string, unknown][] = [];
  for (const [name, value] of Object.entries(cleaned)) {
    const field = fieldOfSpelling.get(name);
    if (field === undefined) {
      rest.push([name, value]);
      continue;
    }
    const earlier = spellingUsed[field];
    if (earlier !== undefined && canonicalJson(known[field]) !== canonicalJson(value)) {
      return { ok: false, problem: `${earlier} and ${name} disagree` };
    }
    known[field] = value;
    spellingUsed[field] ??= name;
  }

  const parsed = knownFieldsSchema.safeParse(known);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const field = issue?.path[0];
    const name = typeof field === 'string' ? (spellingUsed[field as KnownField] ?? field) : 'record';
    return { ok: false, problem: `${name}: ${known[field as KnownField] === undefined ? 'required' : issue?.message}` };
  }
  const fields = parsed.data;
  if (!fields.keyId && !fields.memberId) {
    return { ok: false, problem: 'needs keyId or memberId (a field named "key" is never stored: it may be a secret)' };
  }
  const instant = toInstant(fields.timestamp);
  if (Number.isNaN(instant.getTime()) || instant.getTime() < earliest || instant.getTime() >= latest) {
    return { ok: false, problem: `${spellingUsed.timestamp}: not a time between 2000 and 2100` };
  }
  const content = canonicalJson(cleaned);
  if (Buffer.byteLength(content) > maxLegacyRecordBytes) {
    return { ok: false, problem: `larger than ${maxLegacyRecordBytes} bytes once bodies are removed` };
  }

  const timestamp = instant.toISOString();
  return {
    ok: true,
    record: {
      id: `leg_${createHash('sha256').update(content).digest('base64url')}`,
      generation: '0.1',
      timestamp,
      day: timestamp.slice(0, 10),
      requestId: fields.requestId ?? null,
      keyId: fields.keyId ?? null,
      memberId: fields.memberId ?? null,
      provider: fields.provider,
      model: fields.model,
      status: fields.status ?? null,
      inputTokens: fields.inputTokens ?? null,
      cachedInputTokens: fields.cachedInputTokens ?? null,
      outputTokens: fields.outputTokens ?? null,
      durationMs: fields.durationMs ?? null,
      raw: JSON.stringify(Object.fromEntries(rest)),
    },
    cleaned,
    withheld: [...withheld].sort(),
  };
}
