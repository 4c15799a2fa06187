import { maxLegacyRecordsPerRequest, readLegacyUsageRecord } from '../shared/admin/legacy-usage-record.ts';
import { UsageError } from './cli-errors.ts';

/**
 * The CLI's check of a JSON-lines file of 0.1 usage records, made before anything is sent so that a malformed file
 * stores nothing. Unlike the other commands, which speak HTTP only, this one imports the server's own rules for a
 * record (shared/admin/legacy-usage-record.ts, a pure module: no HTTP, no store) and the server's limit of records
 * per request (shared/admin/admin-schemas.ts): the same rules, not a second copy, so a file the CLI passes cannot
 * fail half-way through its batches on a rule the two read differently. Each record is sent as that reading cleaned
 * it: bodies and credentials never leave the machine, and a batch stays small.
 */

/** A record as sent: the line's object without withheld fields, in the line's own spellings. */
export type LegacyLine = Record<string, unknown>;

/** The line's record to send, or what is wrong with it. */
export function checkLegacyLine(lineText: string): { ok: true; record: LegacyLine } | { ok: false; problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(lineText);
  } catch {
    return { ok: false, problem: 'not valid JSON' };
  }
  const reading = readLegacyUsageRecord(value);
  return reading.ok ? { ok: true, record: reading.cleaned } : { ok: false, problem: reading.problem };
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

export const defaultBatchLimits: BatchLimits = { maxRecords: maxLegacyRecordsPerRequest, maxBytes: 512 * 1024 };

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
