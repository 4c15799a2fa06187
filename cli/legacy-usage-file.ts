import * as z from 'zod';
import { UsageError } from './cli-errors.ts';

/**
 * The CLI's own check of a JSON-lines file of 0.1 usage records, made before anything is sent so that a malformed
 * file stores nothing. It shares no code with the server (the CLI speaks HTTP only), so it restates the server's
 * rules (shared/admin/legacy-usage-record.ts); test/cli/legacy-usage-agreement.test.ts holds the two to the same
 * verdicts. Bodies and credentials are removed here already, so they never leave the machine and a batch stays
 * small; the server removes them again for callers other than this CLI.
 */

/** A record as sent: the line's object without withheld fields, in the line's own spellings. */
export type LegacyLine = Record<string, unknown>;

const spellings = {
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

type Field = keyof typeof spellings;

const fieldOf = new Map<string, Field>(
  Object.entries(spellings).flatMap(([field, names]) => names.map((name): [string, Field] => [name, field as Field])),
);

const maxRecordBytes = 32_768;
const earliest = Date.UTC(2000, 0, 1);
const latest = Date.UTC(2100, 0, 1);

// Messages for the whole field: zod would otherwise report whichever alternative the value came closest to.
const timestampError = 'expected an ISO-8601 date-time with a zone, or epoch seconds or milliseconds';
const statusError = 'expected an HTTP status (100-599) or a short outcome word';

const text = z.string().trim().min(1).max(256);
const count = z.number().int().nonnegative().nullish();
const fieldsSchema = z.object({
  timestamp: z.union(
    [z.iso.datetime({ offset: true, error: timestampError }), z.number().nonnegative(timestampError)],
    {
      error: timestampError,
    },
  ),
  requestId: text.nullish(),
  keyId: text.nullish(),
  memberId: text.nullish(),
  provider: text,
  model: text,
  status: z
    .union(
      [z.number().int(statusError).min(100, statusError).max(599, statusError), z.string().trim().min(1).max(64)],
      {
        error: statusError,
      },
    )
    .nullish(),
  inputTokens: count,
  cachedInputTokens: count,
  outputTokens: count,
  durationMs: z.number().nonnegative().nullish(),
});

// Compared without case, `_` or `-`. Prompt and answer bodies, then credentials: never sent, never stored.
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

function isWithheld(name: string): boolean {
  const normalized = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (credentialNames.has(normalized) || credentialFragments.some((fragment) => normalized.includes(fragment))) {
    return true;
  }
  // Counts, not text: `prompt_tokens` and `message_count` are kept.
  if (/(tokens|count)$/.test(normalized)) return false;
  return bodyNames.has(normalized) || bodyFragments.some((fragment) => normalized.includes(fragment));
}

function withhold(value: unknown, topLevel: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => withhold(item, false));
  if (value === null || typeof value !== 'object') return value;
  const kept: [string, unknown][] = [];
  for (const [name, field] of Object.entries(value)) {
    if (topLevel && fieldOf.has(name)) kept.push([name, field]);
    else if (!isWithheld(name)) kept.push([name, withhold(field, false)]);
  }
  // fromEntries keeps a field named `__proto__` as data.
  return Object.fromEntries(kept);
}

/** Same order-independent form as the server's, only to tell whether two spellings of a field agree. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([name, field]) => `${JSON.stringify(name)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The line's record to send, or what is wrong with it. */
export function checkLegacyLine(lineText: string): { ok: true; record: LegacyLine } | { ok: false; problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(lineText);
  } catch {
    return { ok: false, problem: 'not valid JSON' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, problem: 'expected a JSON object' };
  }
  const record = withhold(value, true) as LegacyLine;

  const known: Partial<Record<Field, unknown>> = {};
  const used: Partial<Record<Field, string>> = {};
  for (const [name, field] of Object.entries(record)) {
    const knownField = fieldOf.get(name);
    if (knownField === undefined) continue;
    const earlier = used[knownField];
    if (earlier !== undefined && canonicalJson(known[knownField]) !== canonicalJson(field)) {
      return { ok: false, problem: `${earlier} and ${name} disagree` };
    }
    known[knownField] = field;
    used[knownField] ??= name;
  }
  const parsed = fieldsSchema.safeParse(known);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const field = issue?.path[0] as Field | undefined;
    const name = field === undefined ? 'record' : (used[field] ?? field);
    return { ok: false, problem: `${name}: ${field && known[field] === undefined ? 'required' : issue?.message}` };
  }
  if (!parsed.data.keyId && !parsed.data.memberId) {
    return { ok: false, problem: 'needs keyId or memberId (a field named "key" is never stored: it may be a secret)' };
  }
  const { timestamp } = parsed.data;
  // A number of 10^11 or more is epoch milliseconds (10^11 seconds would be the year 5138).
  const instant =
    typeof timestamp === 'string' ? Date.parse(timestamp) : timestamp >= 1e11 ? timestamp : timestamp * 1000;
  if (Number.isNaN(instant) || instant < earliest || instant >= latest) {
    return { ok: false, problem: `${used.timestamp}: not a time between 2000 and 2100` };
  }
  if (Buffer.byteLength(canonicalJson(record)) > maxRecordBytes) {
    return { ok: false, problem: `larger than ${maxRecordBytes} bytes once bodies are removed` };
  }
  return { ok: true, record };
}

/** Bad lines named at most, so the one-line error stays readable for a file that is wrong throughout. */
const namedBadLines = 5;

/**
 * Reads every line of the file and returns the records to send. Blank lines are skipped. Any bad line fails the
 * whole file with a `UsageError` naming its line number (and how many others are bad), before anything is sent.
 */
export function readLegacyUsageFile(content: string, fileName: string): LegacyLine[] {
  const records: LegacyLine[] = [];
  const bad: { line: number; problem: string }[] = [];
  content.split(/\r?\n/).forEach((lineText, index) => {
    if (lineText.trim() === '') return;
    const checked = checkLegacyLine(lineText);
    if (checked.ok) records.push(checked.record);
    else bad.push({ line: index + 1, problem: checked.problem });
  });
  const [first, ...others] = bad;
  if (first) {
    const more =
      others.length === 0
        ? ''
        : ` (${others.length} more bad line${others.length === 1 ? '' : 's'}: ${others
            .slice(0, namedBadLines)
            .map((other) => other.line)
            .join(', ')}${others.length > namedBadLines ? ', ...' : ''})`;
    throw new UsageError(`${fileName} line ${first.line}: ${first.problem}${more}; nothing was imported`);
  }
  if (records.length === 0) throw new UsageError(`${fileName} holds no records`);
  return records;
}

export interface BatchLimits {
  /** The server's limit per request. */
  readonly maxRecords: number;
  /** Well below the gateway's body limit (2 MiB by default), so a batch of large records still fits. */
  readonly maxBytes: number;
}

export const defaultBatchLimits: BatchLimits = { maxRecords: 100, maxBytes: 512 * 1024 };

/** Splits records into request bodies' worth, in file order. */
export function batchLegacyRecords(records: readonly LegacyLine[], limits = defaultBatchLimits): LegacyLine[][] {
  const batches: LegacyLine[][] = [];
  let current: LegacyLine[] = [];
  let bytes = 0;
  for (const record of records) {
    // A comma between records; the envelope `{"records":[]}` is within the margin the limit leaves.
    const size = Buffer.byteLength(JSON.stringify(record)) + 1;
    if (current.length > 0 && (current.length >= limits.maxRecords || bytes + size > limits.maxBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(record);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
