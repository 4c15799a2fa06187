/** Number and time formats of the page. Times are UTC throughout, like the periods and the API. */
const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const dayLabel = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month: 'short', day: 'numeric' });
const dateTime = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
});

export function formatInteger(value: number): string {
  return integer.format(value);
}

/** "12,345 from 98 of 100 requests": a total always says how many requests reported it. */
export function formatReportedBy(reportedBy: number, of: number): string {
  return `from ${formatInteger(reportedBy)} of ${formatInteger(of)} ${of === 1 ? 'request' : 'requests'}`;
}

export function formatDateTime(iso: string): string {
  return `${dateTime.format(new Date(iso))} UTC`;
}

const dateMinute = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hour12: false,
});

/** A period's span, to the minute: its bounds are whole hours. */
export function formatSpan(startIso: string, endIso: string): string {
  return `${dateMinute.format(new Date(startIso))} – ${dateMinute.format(new Date(endIso))} UTC`;
}

export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1_000) return `${milliseconds} ms`;
  if (milliseconds < 60_000) return `${(milliseconds / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(milliseconds / 60_000);
  return `${minutes} min ${Math.round((milliseconds % 60_000) / 1_000)} s`;
}

/** A chart label: the hour (with the day at midnight and at the first bucket) or the day. */
export function formatBucket(iso: string, bucket: 'hour' | 'day', first: boolean): string {
  const at = new Date(iso);
  if (bucket === 'day') return dayLabel.format(at);
  const hour = `${String(at.getUTCHours()).padStart(2, '0')}:00`;
  return first || at.getUTCHours() === 0 ? `${dayLabel.format(at)} ${hour}` : hour;
}

/** A colour per provider, fixed by its place in the period's provider list so filters never repaint one. */
const palette = ['#2563eb', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2', '#65a30d', '#dc2626'];

export function providerColor(provider: string, allProviders: readonly string[]): string {
  const index = allProviders.indexOf(provider);
  return palette[(index < 0 ? allProviders.length : index) % palette.length] as string;
}
