import { createHash } from 'node:crypto';
import { looksLikeCredential } from '../auth/credential-like.ts';
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
 * - of the other fields only those on an allowlist of operational metadata are kept, as JSON text in `raw`, each
 *   in its expected shape (`extraFieldShapes`); every other field is withheld, so no prompt, answer or credential
 *   is stored whatever it is called. A value that looks like a credential (shared/auth/credential-like.ts) is
 *   withheld at any depth, in known fields too. The CLI withholds before sending, so nothing withheld leaves the
 *   operator's machine; the gateway withholds again for any other caller.
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

export { maxLegacyRecordsPerRequest } from './admin-schemas.ts';

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

/**
 * The only other fields a stored record keeps, in `raw`: operational metadata of the 0.1 engine, each with the
 * shape its value must have. Names are compared without case, `_` or `-` (`total_tokens`, `totalTokens`); a field
 * of any other name, a value of another shape, and every part of a nested object not listed is withheld. An
 * allowlist, not a list of what to remove: a prompt under a name nobody thought of (`user_input`, `turns[].said`,
 * `payload.msg`, `generation`) is never kept.
 */
type ExtraShape = 'count' | 'number' | 'flag' | 'text' | 'texts' | { readonly [name: string]: ExtraShape };

const engineShape: ExtraShape = { version: 'text', node: 'text', host: 'text', region: 'text', worker: 'text' };

const extraFieldShapes: ReadonlyMap<string, ExtraShape> = new Map<string, ExtraShape>([
  ['totaltokens', 'count'],
  ['reasoningtokens', 'count'],
  ['retries', 'count'],
  ['latencyms', 'number'],
  ['ttftms', 'number'],
  ['timetofirsttokenms', 'number'],
  ['costusd', 'number'],
  ['stream', 'flag'],
  ['region', 'text'],
  ['finishreason', 'text'],
  ['stopreason', 'text'],
  ['errortype', 'text'],
  ['errorcode', 'text'],
  ['tags', 'texts'],
  ['engine', engineShape],
  ['meta', engineShape],
]);

const normalizedName = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** A text that is short, plain and holds nothing shaped like a credential. */
function keptText(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 256 && !looksLikeCredential(value);
}

/** Whether any text at any depth of a value (names included) looks like a credential. */
function holdsCredential(value: unknown): boolean {
  if (typeof value === 'string') return looksLikeCredential(value);
  if (Array.isArray(value)) return value.some(holdsCredential);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).some(([name, inner]) => looksLikeCredential(name) || holdsCredential(inner));
  }
  return false;
}

/** The value as its shape keeps it, recording the paths of what is withheld; `undefined` when nothing is kept. */
function conform(value: unknown, shape: ExtraShape, path: string, withheld: Set<string>): unknown {
  const refuse = () => {
    withheld.add(path);
    return undefined;
  };
  switch (shape) {
    case 'count':
      return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : refuse();
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : refuse();
    case 'flag':
      return typeof value === 'boolean' ? value : refuse();
    case 'text':
      return keptText(value) ? value : refuse();
    case 'texts': {
      if (!Array.isArray(value)) return refuse();
      const kept = value.filter((item): item is string => keptText(item)).slice(0, 32);
      if (kept.length < value.length) withheld.add(`${path}[]`);
      return kept;
    }
    default: {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return refuse();
      const kept: [string, unknown][] = [];
      for (const [name, inner] of Object.entries(value)) {
        const innerShape = shape[normalizedName(name)];
        const innerPath = `${path}.${name}`;
        const innerValue = innerShape ? conform(inner, innerShape, innerPath, withheld) : undefined;
        if (!innerShape) withheld.add(innerPath);
        if (innerValue !== undefined) kept.push([name, innerValue]);
      }
      // fromEntries defines own properties, so a field named `__proto__` stays data instead of becoming a prototype.
      return Object.fromEntries(kept);
    }
  }
}

/**
 * The line as it may be stored: known fields (unless their value looks like a credential, at any depth), and the
 * allowlisted extras in their shapes. Everything else is withheld, its path recorded.
 */
function withhold(line: object, withheld: Set<string>): Record<string, unknown> {
  const kept: [string, unknown][] = [];
  for (const [name, value] of Object.entries(line)) {
    if (fieldOfSpelling.has(name)) {
      if (holdsCredential(value)) withheld.add(name);
      else kept.push([name, value]);
      continue;
    }
    const shape = extraFieldShapes.get(normalizedName(name));
    if (!shape) {
      withheld.add(name);
      continue;
    }
    const conformed = conform(value, shape, name, withheld);
    if (conformed !== undefined) kept.push([name, conformed]);
  }
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
      /** Paths of the fields withheld, such as `messages`, `engine.response_text` or `tags[]`. */
      withheld: string[];
    }
  | { ok: false; problem: string };

/** Reads one 0.1 line (already parsed from JSON) into the record to store, or says what is wrong with it. */
export function readLegacyUsageRecord(line: unknown): LegacyRecordReading {
  if (line === null || typeof line !== 'object' || Array.isArray(line)) {
    return { ok: false, problem: 'expected a JSON object' };
  }
  const withheld = new Set<string>();
  const cleaned = withhold(line, withheld);

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
