import type { RoundTripSplit } from './store-round-trips.ts';

/** Lays rows out as an aligned text table; the first row is the header. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [index, cell] of row.entries()) widths[index] = Math.max(widths[index] ?? 0, cell.length);
  }
  const line = (row: readonly string[]) =>
    row
      .map((cell, index) => (index === 0 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0)))
      .join('  ');
  const [header, ...body] = rows;
  if (!header) return '';
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...body.map(line)].join('\n');
}

export function ms(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return '—';
  return value.toFixed(2);
}

export function mb(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return '—';
  return value.toFixed(1);
}

export interface RoundTripPart {
  typical: string;
  count: number;
  min: number;
  max: number;
  requestsWithTypical: number;
  /** Every other sequence seen, with how many requests had it. */
  others: [string, number][];
}

export interface RoundTripSummary {
  requests: number;
  /** The most frequent sequence of commands in each position, and how many requests had exactly it. */
  beforeDispatch: RoundTripPart;
  alongsideDispatch: RoundTripPart;
  afterDispatch: RoundTripPart;
}

export function summarizeRoundTrips(splits: readonly RoundTripSplit[]): RoundTripSummary {
  const part = (pick: (split: RoundTripSplit) => string[]) => {
    const signatures = new Map<string, number>();
    let min = Number.POSITIVE_INFINITY;
    let max = 0;
    for (const split of splits) {
      const commands = pick(split);
      min = Math.min(min, commands.length);
      max = Math.max(max, commands.length);
      const signature = commands.join(' + ') || '(none)';
      signatures.set(signature, (signatures.get(signature) ?? 0) + 1);
    }
    const [[typical, requestsWithTypical] = ['(none)', 0], ...others] = [...signatures].sort((a, b) => b[1] - a[1]);
    const count = typical === '(none)' ? 0 : typical.split(' + ').length;
    return { typical, count, min: splits.length ? min : 0, max, requestsWithTypical, others };
  };
  return {
    requests: splits.length,
    beforeDispatch: part((split) => split.beforeDispatch),
    alongsideDispatch: part((split) => split.alongsideDispatch),
    afterDispatch: part((split) => split.afterDispatch),
  };
}

export function describeRoundTrips(summary: RoundTripSummary): string[] {
  const describe = (label: string, part: RoundTripSummary['beforeDispatch']) => {
    const range = part.min === part.max ? `${part.min}` : `${part.min}–${part.max}`;
    const others = part.others.map(([signature, requests]) => `; ${signature} in ${requests}`).join('');
    return `${label}: ${range} (${part.typical}; ${part.requestsWithTypical}/${summary.requests} requests exactly this${others})`;
  };
  return [
    describe('before dispatch (the client waits for them)', summary.beforeDispatch),
    describe('alongside dispatch (sent before, answered after the upstream call left)', summary.alongsideDispatch),
    describe('after dispatch (settlement, off the critical path)', summary.afterDispatch),
  ];
}
