import type { DetailRow } from './usage-details.ts';

/**
 * The CSV export (spec §4.6 rule 2): RFC 4180 — comma-separated, CRLF line ends, a header row, a field quoted
 * when it holds a comma, a quote, CR or LF, quotes doubled inside — in UTF-8 without a byte-order mark (a BOM
 * would become part of the first header name for strict parsers).
 *
 * Columns, in order (an empty field means unknown or not yet known, never 0):
 * | column | meaning |
 * | --- | --- |
 * | started_at | when the gateway admitted the request, ISO 8601 UTC |
 * | ended_at | when it ended; empty while running |
 * | request_id | the gateway's request id |
 * | member_id | the member the key belongs to |
 * | key_id, key_name | the key (its name as the page shows it, with its display prefix) |
 * | upstream | the upstream prefix the request went through |
 * | provider, model | as resolved from the requested model id |
 * | wire | the client wire format |
 * | stream | true or false |
 * | state | running, completed or failed |
 * | status | HTTP status sent to the client |
 * | input_tokens, cached_input_tokens, output_tokens | as the provider reported them (cached is inside input) |
 * | charge | allowance charge in tokens |
 * | reserved | tokens reserved at admission |
 * | source | measured (provider usage) or conservative (the reservation was kept) |
 * | duration_ms | from admission to the end |
 */
export const csvColumns = [
  'started_at',
  'ended_at',
  'request_id',
  'member_id',
  'key_id',
  'key_name',
  'upstream',
  'provider',
  'model',
  'wire',
  'stream',
  'state',
  'status',
  'input_tokens',
  'cached_input_tokens',
  'output_tokens',
  'charge',
  'reserved',
  'source',
  'duration_ms',
] as const;

export const csvContentType = 'text/csv; charset=utf-8; header=present';

function csvCells(row: DetailRow): (string | number | boolean | null)[] {
  return [
    row.startedAt,
    row.endedAt,
    row.id,
    row.memberId,
    row.keyId,
    row.keyLabel,
    row.upstream,
    row.provider,
    row.model,
    row.wire,
    row.stream,
    row.state,
    row.status,
    row.inputTokens,
    row.cachedInputTokens,
    row.outputTokens,
    row.charge,
    row.reserved,
    row.source,
    row.durationMs,
  ];
}

/** Text a spreadsheet would run as a formula (OWASP's CSV injection list). */
const formulaStart = /^[=+\-@\t\r]/;

/**
 * One RFC 4180 field. Text that a spreadsheet would take for a formula (a key named `=HYPERLINK(…)`) gets a
 * leading apostrophe, so opening the export never runs it; numbers are written as numbers.
 */
export function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  const text = typeof value === 'string' && formulaStart.test(value) ? `'${value}` : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(rows: readonly DetailRow[]): string {
  const lines = [csvColumns.join(','), ...rows.map((row) => csvCells(row).map(csvField).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}
